//! The one way to build a panel: implement [`PanelModel`] (the panel's parameters, tabs,
//! computations, figures and engine calls) and the kit's [`Host`] turns it into a
//! [`Panel`](crate::panel::Panel) the shell drives and a [`PanelType`] the catalog registers.
//!
//! The host owns what every panel has: the parameters with their undo history, the view
//! settings, what a headless run computes, the project folder, the warning banner and the tab
//! strip. From the declared parameters ([`PanelModel::declare`]) it derives the range checks,
//! the sweepable parameters and how a sweep point sets them, and the names of undo steps. From
//! the model's tasks it derives polling, "busy", and the headless run (`benchtop run`), which
//! starts the same tasks as the window's buttons, on the calling thread.

use std::any::Any;
use std::cell::RefCell;
use std::collections::BTreeMap;
use std::fmt::Debug;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};

use benchtop_compute::{CancelToken, ComputeError, Progress};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

use crate::cli::{BenchEntry, CommandEntry};
use crate::panel::{
    DataTable, PaneView, Panel, PanelContext, PanelFigure, PanelKind, PanelType, ParamIssue,
};
use crate::params::{Declare, Declared};
use crate::project::Sidecar;
use crate::sweep::{ReferenceCurve, SweepEvaluator, SweepOutput, SweepSupport};
use crate::task::{Runner, TaskHandle};
use crate::undo::UndoHistory;

/// Everything the project file stores for one panel: parameters, view settings, what a
/// headless run computes, and results (their arrays in the sidecar).
///
/// Two docs are equal when their parameters, view, headless flags, results and pane view are:
/// `made_from` is bookkeeping about the results (a second save can know a digest the first
/// did not, for a result the panel computed by itself since).
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct PanelDoc<P, V, H, R> {
    /// Parameters and seeds.
    pub params: P,
    /// View settings.
    pub view: V,
    /// What a headless run computes.
    pub headless: H,
    /// Results.
    pub results: R,
    /// Whether the pane shows the panel or its sweeps.
    #[serde(skip_serializing_if = "PaneView::is_default")]
    pub pane_view: PaneView,
    /// Per task (in declaration order), a digest of the settings its saved result was made
    /// from: a reopened result made with other settings is marked stale, as before saving.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub made_from: Vec<Option<u64>>,
}

impl<P: PartialEq, V: PartialEq, H: PartialEq, R: PartialEq> PartialEq for PanelDoc<P, V, H, R> {
    fn eq(&self, other: &Self) -> bool {
        self.params == other.params
            && self.view == other.view
            && self.headless == other.headless
            && self.results == other.results
            && self.pane_view == other.pane_view
    }
}

/// The saved state of a panel built on model `M`.
pub type DocOf<M> = PanelDoc<
    <M as PanelModel>::Params,
    <M as PanelModel>::View,
    <M as Tasks>::Headless,
    <M as PanelModel>::Results,
>;

/// What a model's code may use while it draws a tab or starts a task.
pub struct Cx<'a, M: PanelModel> {
    /// The parameters (every edit is an undo step once the pointer is released).
    pub params: &'a mut M::Params,
    /// The view settings.
    pub view: &'a mut M::View,
    /// The project file's folder, against which relative data paths resolve.
    pub project_dir: Option<&'a Path>,
    /// Where tasks run: a background job in the window, the calling thread headless.
    pub runner: Runner<'a>,
    /// The declared parameters.
    pub declared: &'a Declared<M::Params>,
    /// Whether engines share the window's wgpu device (so GPU buffers can be drawn directly).
    pub shared_gpu: bool,
    /// The window's renderer, when there is one (for paint callbacks).
    pub render_state: Option<&'a eframe::egui_wgpu::RenderState>,
}

impl<M: PanelModel> Cx<'_, M> {
    /// Draws the declared widget of parameter `key` (label, field or slider, tooltip).
    pub fn param(&mut self, ui: &mut egui::Ui, key: &str) -> Option<egui::Response> {
        self.declared.ui(ui, key, self.params)
    }

    /// Draws the declared widgets of `keys`, one per row.
    pub fn params(&mut self, ui: &mut egui::Ui, keys: &[&str]) {
        for key in keys {
            self.param(ui, key);
        }
    }
}

/// What a sweep point's evaluation may use besides the parameters.
pub struct SweepCx<'a> {
    /// The project file's folder.
    pub project_dir: Option<&'a Path>,
    /// A cache shared by the points of one sweep run (e.g. trials read once from a file).
    pub cache: &'a Mutex<Option<Arc<dyn Any + Send + Sync>>>,
}

impl SweepCx<'_> {
    /// The cached value of type `T`, computed by `make` the first time.
    pub fn cached<T: Any + Send + Sync>(
        &self,
        make: impl FnOnce() -> Result<T, ComputeError>,
    ) -> Result<Arc<T>, ComputeError> {
        let mut slot = self.cache.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(value) = slot
            .as_ref()
            .and_then(|v| Arc::clone(v).downcast::<T>().ok())
        {
            return Ok(value);
        }
        let value = Arc::new(make()?);
        *slot = Some(Arc::clone(&value) as Arc<dyn Any + Send + Sync>);
        Ok(value)
    }
}

/// A panel, as its author writes it: parameters, tabs, computations, figures and engine
/// calls. See ARCHITECTURE.md, "Adding a panel in an afternoon".
pub trait PanelModel: Tasks + Default + 'static {
    /// The parameters a user edits: the unit of undo and of sweeps.
    type Params: Declare
        + Clone
        + PartialEq
        + Debug
        + Default
        + Serialize
        + DeserializeOwned
        + Send
        + Sync;
    /// View settings that are saved but are not parameters (the tab shown, toggles).
    type View: Clone + PartialEq + Debug + Default + Serialize + DeserializeOwned;
    /// Results kept in the project file (their arrays go to the sidecar).
    type Results: Clone + PartialEq + Debug + Default + Serialize + DeserializeOwned;
    /// The tabs.
    type Tab: Copy + PartialEq + 'static;

    /// The catalog entry.
    const KIND: PanelKind;
    /// The tabs in order, with their labels (write it and [`PanelModel::tab`] with
    /// [`tabs!`](crate::tabs)).
    const TABS: &'static [(Self::Tab, &'static str)];

    /// The `benchtop bench NAME` entries the panel owns (usually one, timing its engine).
    const BENCHES: &'static [BenchEntry] = &[];

    /// The `benchtop NAME …` subcommands the panel owns (e.g. `spectra`, `chem`, `reflect`).
    const COMMANDS: &'static [CommandEntry] = &[];

    /// The tab `view` shows.
    fn tab(view: &mut Self::View) -> &mut Self::Tab;

    /// The ephemeral state with the saved `results` (arrays from `sidecar`), made with
    /// `params`. An error drops the results with a warning (they can be recomputed).
    fn restore(
        results: &Self::Results,
        sidecar: Option<&Sidecar>,
        params: &Self::Params,
    ) -> anyhow::Result<Self>;

    /// Writes the results to keep into `results` (arrays to `sidecar` when saving a file).
    fn save(&self, results: &mut Self::Results, sidecar: Option<&Sidecar>) -> anyhow::Result<()>;

    /// The project's arrays moved to `sidecar` after a save (see [`Panel::sidecar_moved`]).
    fn sidecar_moved(&mut self, _sidecar: &Sidecar) {}

    /// Draws tab `tab`.
    fn tab_ui(&mut self, tab: Self::Tab, ui: &mut egui::Ui, cx: &mut Cx<'_, Self>);

    /// Called after drawing when no pointer button is held, e.g. to restart a live run whose
    /// inputs changed.
    fn react(&mut self, _cx: &mut Cx<'_, Self>) {}

    /// The tasks `benchtop run` starts, in order, with their shares of the progress bar: by
    /// default the flagged ones in declaration order, equal shares. Override it when a task
    /// needs another's result first (e.g. a fit needs its data).
    fn headless(&self, flags: &Self::Headless) -> Vec<(Self::Task, f64)> {
        Self::flagged(flags)
    }

    /// Collects streamed updates and finished results (every frame, even when hidden, and
    /// after each task of a headless run). Override it to act on a result as it arrives
    /// (`task.poll_result()` is true then), e.g. to choose something in `params`.
    fn poll(&mut self, _params: &mut Self::Params) {
        for task in self.slots_mut() {
            task.poll();
        }
    }

    /// Problems with `params` beyond the declared ranges (the engines' own checks), keys
    /// naming the place in the project file (e.g. `params.mc.beta`).
    fn validate(params: &Self::Params) -> Vec<ParamIssue>;

    /// Figures of the current results, the same on screen and in files.
    fn figures(&self, params: &Self::Params, view: &Self::View) -> Vec<PanelFigure>;

    /// Tables of the current results, for CSV export.
    fn tables(&self, params: &Self::Params, view: &Self::View) -> Vec<DataTable>;

    /// Key scalar results for `summary.json`.
    fn summary(&self, params: &Self::Params) -> serde_json::Value;

    /// Scalar outputs sweeps may record.
    fn sweep_outputs() -> Vec<SweepOutput>;

    /// The `outputs` for one sweep point: `params` already carry the point's values.
    fn evaluate(
        params: &Self::Params,
        outputs: &[String],
        seed: u64,
        cx: &SweepCx<'_>,
        progress: &Progress,
        cancel: &CancelToken,
    ) -> Result<BTreeMap<String, f64>, ComputeError>;

    /// A digest of the parameters a sweep's results depend on besides its axes and seeds
    /// (results go stale when it changes).
    fn sweep_fingerprint(params: &Self::Params) -> String {
        format!("{params:?}")
    }

    /// An exact curve to draw with a sweep of `param` against `output` over [`low`, `high`].
    fn reference(
        _params: &Self::Params,
        _param: &str,
        _output: &str,
        _low: f64,
        _high: f64,
    ) -> Option<ReferenceCurve> {
        None
    }
}

/// The computations a panel model starts (from buttons, from parameter changes, headless),
/// declared once with [`panel_tasks!`](crate::panel_tasks): each task's name, its headless
/// flag and default, the field that holds it (its state and result) and how it starts. From
/// that come the task enum, the headless flags saved in the project, polling, "busy", the
/// queue of a project opened with `compute_on_open`, and `benchtop run`.
pub trait Tasks: Sized {
    /// One variant per computation.
    type Task: Copy + Debug + PartialEq + 'static;
    /// What `benchtop run` computes: one flag per task, saved in the project file.
    type Headless: Clone + PartialEq + Debug + Default + Serialize + DeserializeOwned;

    /// Every task, in declaration order.
    const ALL: &'static [Self::Task];

    /// The field holding `task`.
    fn slot(&self, task: Self::Task) -> &dyn TaskHandle;

    /// Every task's field, in declaration order, for polling.
    fn slots_mut(&mut self) -> Vec<&mut dyn TaskHandle>;

    /// Every task's field, in declaration order, for "busy".
    fn slots(&self) -> Vec<&dyn TaskHandle> {
        Self::ALL.iter().map(|task| self.slot(*task)).collect()
    }

    /// Whether `task` already holds a result (a task the panel starts by itself may have one
    /// before a queued start reaches it; it is then not run again).
    fn has_result_for(&self, task: Self::Task) -> bool {
        self.slot(task).has_result()
    }

    /// The tasks whose flag is set in `flags`, in declaration order, with equal shares.
    fn flagged(flags: &Self::Headless) -> Vec<(Self::Task, f64)>;

    /// Starts `task` from the current parameters on `cx.runner`.
    fn start_task(&mut self, task: Self::Task, cx: &mut Cx<'_, Self>)
    where
        Self: PanelModel;
}

/// Declares a panel model's tasks once (see [`Tasks`]): writes the task enum, the headless
/// flags (a struct of one `bool` per task, each field's default given) and the [`Tasks`] impl.
///
/// ```ignore
/// benchtop_kit::panel_tasks! {
///     /// The panel's computations.
///     pub enum IsingTask for IsingModel;
///     /// What `benchtop run` computes for this panel.
///     pub struct HeadlessTasks;
///     /// The live Monte Carlo run.
///     MonteCarlo(monte_carlo = true): mc.task => |m, cx| m.mc.start(cx);
///     /// Training the duality map.
///     Duality(duality = true): duality.train => |m, cx| m.duality.start_training(cx);
/// }
/// ```
#[macro_export]
macro_rules! panel_tasks {
    (
        $(#[$enum_meta:meta])*
        $enum_vis:vis enum $task:ident for $model:ty;
        $(#[$flags_meta:meta])*
        $flags_vis:vis struct $flags:ident;
        $(
            $(#[$meta:meta])*
            $variant:ident($key:ident = $default:expr): $first:ident $(.$rest:ident)* => $start:expr;
        )+
    ) => {
        $(#[$enum_meta])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        $enum_vis enum $task {
            $($(#[$meta])* $variant,)+
        }

        $(#[$flags_meta])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, ::serde::Serialize, ::serde::Deserialize)]
        #[serde(default)]
        $flags_vis struct $flags {
            $($(#[$meta])* pub $key: bool,)+
        }

        impl ::std::default::Default for $flags {
            fn default() -> Self {
                Self { $($key: $default,)+ }
            }
        }

        impl $crate::host::Tasks for $model {
            type Task = $task;
            type Headless = $flags;

            const ALL: &'static [$task] = &[$($task::$variant,)+];

            fn slot(&self, task: $task) -> &dyn $crate::task::TaskHandle {
                match task {
                    $($task::$variant => &self.$first $(.$rest)*,)+
                }
            }

            fn slots_mut(&mut self) -> ::std::vec::Vec<&mut dyn $crate::task::TaskHandle> {
                vec![$(&mut self.$first $(.$rest)*,)+]
            }

            fn flagged(flags: &$flags) -> ::std::vec::Vec<($task, f64)> {
                let mut tasks = ::std::vec::Vec::new();
                $(if flags.$key {
                    tasks.push(($task::$variant, 1.0));
                })+
                tasks
            }

            fn start_task(&mut self, task: $task, cx: &mut $crate::host::Cx<'_, Self>) {
                match task {
                    $($task::$variant => {
                        let start: fn(&mut $model, &mut $crate::host::Cx<'_, $model>) = $start;
                        start(self, cx);
                    })+
                }
            }
        }
    };
}

/// `tabs!(Tab { A => "First", B => "Second" })` inside `impl PanelModel`: writes
/// [`PanelModel::TABS`] and [`PanelModel::tab`] (the view's `tab` field).
#[macro_export]
macro_rules! tabs {
    ($tab:ident { $($variant:ident => $label:expr),+ $(,)? }) => {
        const TABS: &'static [($tab, &'static str)] = &[$(($tab::$variant, $label),)+];

        fn tab(view: &mut Self::View) -> &mut $tab {
            &mut view.tab
        }
    };
}

/// What was saved last, to tell whether the panel has changed since.
struct SavedMark<P> {
    /// The parameters.
    params: P,
    /// [`Host::user_results`] then.
    user_results: u64,
    /// How many results each task had received then, in [`Tasks::ALL`] order (none: all 0).
    received: Vec<u64>,
}

/// A panel built on model `M`.
pub struct Host<M: PanelModel> {
    params: M::Params,
    view: M::View,
    headless: <M as Tasks>::Headless,
    pane_view: PaneView,
    history: UndoHistory<M::Params>,
    /// Edits of the parameters by the user (undo steps recorded, undone or redone).
    edits: u64,
    /// Per task (in [`Tasks::ALL`] order): whether its current or last run was started
    /// by the user (a button) rather than by the panel itself (`react`).
    user_started: Vec<bool>,
    /// Results delivered by runs the user started.
    user_results: u64,
    saved: SavedMark<M::Params>,
    declared: Declared<M::Params>,
    project_dir: Option<PathBuf>,
    warning: Option<String>,
    /// Saved results that could not be restored, with the reason: written back unchanged on
    /// save (their sidecar files are carried along) until the model has results of its own.
    unrestored: Option<(M::Results, String)>,
    /// The saved tasks' settings digests, written back with results that were not restored.
    saved_made_from: Vec<Option<u64>>,
    /// Tasks to start one after another in the window ([`Panel::compute_missing`]).
    queued: std::collections::VecDeque<<M as Tasks>::Task>,
    model: M,
}

impl<M: PanelModel> Host<M> {
    /// A panel showing `doc`'s parameters and view, without results.
    pub fn new(doc: DocOf<M>) -> Self {
        Self {
            history: UndoHistory::new(doc.params.clone()),
            edits: 0,
            user_started: Vec::new(),
            user_results: 0,
            saved: SavedMark {
                params: doc.params.clone(),
                user_results: 0,
                received: Vec::new(),
            },
            params: doc.params,
            view: doc.view,
            headless: doc.headless,
            pane_view: doc.pane_view,
            declared: Declared::new(M::Params::declare()),
            project_dir: None,
            warning: None,
            unrestored: None,
            saved_made_from: Vec::new(),
            queued: std::collections::VecDeque::new(),
            model: M::default(),
        }
    }

    /// The parameters.
    pub fn params(&self) -> &M::Params {
        &self.params
    }

    /// The model (its tasks and results), for tests.
    pub fn model(&self) -> &M {
        &self.model
    }

    /// The declared parameters.
    pub fn declared(&self) -> &Declared<M::Params> {
        &self.declared
    }

    fn cx<'a>(
        &'a mut self,
        runner: Runner<'a>,
        shared_gpu: bool,
        render_state: Option<&'a eframe::egui_wgpu::RenderState>,
    ) -> (&'a mut M, Cx<'a, M>) {
        (
            &mut self.model,
            Cx {
                params: &mut self.params,
                view: &mut self.view,
                project_dir: self.project_dir.as_deref(),
                runner,
                declared: &self.declared,
                shared_gpu,
                render_state,
            },
        )
    }

    /// Notes which tasks the user started while drawing (busy after `tab_ui` but not before)
    /// and which the panel started itself (busy only after `react`).
    fn note_starts(&mut self, before: &[bool], drawn: &[bool], after: &[bool]) {
        self.user_started.resize(after.len(), false);
        for (i, started) in self.user_started.iter_mut().enumerate() {
            let (before, drawn, after) = (before[i], drawn[i], after[i]);
            if drawn && !before {
                *started = true;
            } else if after && !drawn {
                *started = false;
            }
        }
    }

    /// What the undo (`true`) or redo step would change, named by the first declared
    /// parameter that differs, or "parameter edit".
    fn step_label(&self, undo: bool) -> Option<String> {
        let target = if undo {
            self.history.peek_undo()?
        } else {
            self.history.peek_redo()?
        };
        let label = self
            .declared
            .first_difference(target, self.history.committed())
            .map_or_else(
                || "parameter edit".to_owned(),
                |label| format!("{label} change"),
            );
        Some(label)
    }
}

impl<M: PanelModel> Panel for Host<M> {
    fn kind(&self) -> &'static PanelKind {
        // A `const` item, promoted to a `'static` borrow.
        &const { M::KIND }
    }

    fn set_project_dir(&mut self, dir: Option<&Path>) {
        self.project_dir = dir.map(Path::to_path_buf);
    }

    fn sidecar_moved(&mut self, sidecar: &Sidecar) {
        self.model.sidecar_moved(sidecar);
    }

    fn compute_missing(&mut self) {
        // A task the panel started by itself may already run; it is skipped once it has
        // its result (`has_result_for`).
        if self.model.slots().iter().all(|task| !task.has_result()) {
            self.queued = self
                .model
                .headless(&self.headless)
                .into_iter()
                .map(|(task, _)| task)
                .collect();
        }
    }

    fn restore_warning(&self) -> Option<String> {
        self.unrestored.as_ref().map(|(_, reason)| reason.clone())
    }

    fn ui(&mut self, ui: &mut egui::Ui, context: &mut PanelContext<'_>) {
        crate::widgets::dismissible_warning(ui, &mut self.warning);
        if let Some(dir) = context.project_dir {
            self.project_dir = Some(dir.to_path_buf());
        }
        ui.horizontal(|ui| {
            let shown = M::tab(&mut self.view);
            for (tab, label) in M::TABS {
                ui.selectable_value(shown, *tab, *label);
            }
        });
        ui.separator();
        let tab = *M::tab(&mut self.view);
        let repaint = ui.ctx().clone();
        let runner = Runner::Background {
            jobs: context.jobs,
            repaint: Some(&repaint),
        };
        // The next queued task once the previous one is done (each may need the one before,
        // e.g. a fit needs the data); started by the panel, so no change of the user's.
        let mut next = None;
        if !self.model.slots().iter().any(|task| task.is_busy()) {
            while let Some(task) = self.queued.pop_front() {
                if !self.model.has_result_for(task) {
                    next = Some(task);
                    break;
                }
            }
        }
        if !self.queued.is_empty() {
            // The idle window sleeps: wake it to start the next task once this one is done.
            ui.ctx()
                .request_repaint_after(std::time::Duration::from_millis(200));
        }
        let (model, mut cx) = self.cx(runner, context.shared_gpu, context.render_state);
        if let Some(task) = next {
            model.start_task(task, &mut cx);
        }
        let before = busy_tasks(model);
        model.tab_ui(tab, ui, &mut cx);
        let drawn = busy_tasks(model);
        let dragging = ui.input(|input| input.pointer.any_down());
        if !dragging {
            model.react(&mut cx);
        }
        let after = busy_tasks(model);
        self.note_starts(&before, &drawn, &after);
        // A drag in progress, or a value being typed (a text field has the keyboard): the edit
        // is one undo step when it is committed (pointer released, Enter, focus lost), not one
        // per frame or keystroke.
        let editing = dragging || ui.ctx().egui_wants_keyboard_input();
        if self.history.observe(&self.params, editing) {
            self.edits += 1;
        }
    }

    /// Takes in results; a result of a run the user started is a change. Parameters the model
    /// sets itself while polling (e.g. a choice computed from the user's input) are no undo
    /// step, and no change when the parameters were the saved ones.
    fn poll(&mut self) {
        let received: Vec<u64> = results_received(&self.model);
        let clean = self.params == *self.history.committed();
        let unchanged = clean && self.params == self.saved.params;
        self.model.poll(&mut self.params);
        let new_user_results = results_received(&self.model)
            .iter()
            .zip(&received)
            .zip(&self.user_started)
            .filter(|((now, then), user)| now > then && **user)
            .count();
        self.user_results += new_user_results as u64;
        if clean && self.params != *self.history.committed() {
            self.history.absorb(self.params.clone());
            if unchanged {
                self.saved.params = self.params.clone();
            }
        }
    }

    fn is_busy(&self) -> bool {
        self.model.slots().iter().any(|task| task.is_busy())
    }

    fn save(&self, sidecar: Option<&Sidecar>) -> anyhow::Result<Box<dyn Any>> {
        let mut results = M::Results::default();
        self.model.save(&mut results, sidecar)?;
        if let Some((kept, _)) = &self.unrestored
            && results == M::Results::default()
        {
            results = kept.clone();
        }
        let made_from = if self.unrestored.is_some() {
            self.saved_made_from.clone()
        } else {
            self.model
                .slots()
                .iter()
                .map(|slot| slot.made_from())
                .collect()
        };
        Ok(Box::new(DocOf::<M> {
            params: self.params.clone(),
            view: self.view.clone(),
            headless: self.headless.clone(),
            results,
            pane_view: self.pane_view,
            made_from,
        }))
    }

    fn validate(&self) -> Vec<ParamIssue> {
        let mut issues = M::validate(&self.params);
        issues.extend(self.declared.issues(&self.params));
        issues
    }

    fn figures(&self) -> Vec<PanelFigure> {
        self.model.figures(&self.params, &self.view)
    }

    fn data_tables(&self) -> Vec<DataTable> {
        self.model.tables(&self.params, &self.view)
    }

    fn summary(&self) -> serde_json::Value {
        self.model.summary(&self.params)
    }

    fn sweep_support(&self) -> SweepSupport {
        let params = self.params.clone();
        SweepSupport {
            params: self.declared.sweep_params(&self.params),
            outputs: M::sweep_outputs(),
            evaluator: Arc::new(Evaluator::<M> {
                base: self.params.clone(),
                declared: self.declared.clone(),
                project_dir: self.project_dir.clone(),
                cache: Mutex::new(None),
            }),
            fingerprint: M::sweep_fingerprint(&self.params),
            references: Arc::new(move |param, output, low, high| {
                M::reference(&params, param, output, low, high)
            }),
        }
    }

    fn run_headless(&mut self, progress: &Progress, cancel: &CancelToken) -> anyhow::Result<()> {
        let steps = self.model.headless(&self.headless);
        let total: f64 = steps.iter().map(|(_, share)| share.max(0.0)).sum();
        let mut done = 0.0;
        for (task, share) in steps {
            let share = share.max(0.0);
            let (start, end) = if total > 0.0 {
                (done / total, (done + share) / total)
            } else {
                (0.0, 1.0)
            };
            let slice = progress.slice(start, end);
            let failure = RefCell::new(None);
            let runner = Runner::Inline {
                progress: &slice,
                cancel,
                failure: &failure,
            };
            let (model, mut cx) = self.cx(runner, false, None);
            model.start_task(task, &mut cx);
            self.model.poll(&mut self.params);
            if let Some(error) = failure.into_inner() {
                return Err(error.into());
            }
            done += share;
        }
        progress.set(1.0, "done");
        Ok(())
    }

    fn undo(&mut self) -> bool {
        let done = self.history.undo_into(&mut self.params);
        self.edits += u64::from(done);
        done
    }

    fn redo(&mut self) -> bool {
        let done = self.history.redo_into(&mut self.params);
        self.edits += u64::from(done);
        done
    }

    fn edit_count(&self) -> u64 {
        self.edits
    }

    fn has_unsaved_changes(&self) -> bool {
        self.params != self.saved.params || self.user_results != self.saved.user_results
    }

    fn unsaved_compute_time(&self) -> std::time::Duration {
        self.model
            .slots()
            .iter()
            .enumerate()
            .filter(|(i, task)| {
                task.results_received() > self.saved.received.get(*i).copied().unwrap_or(0)
            })
            .filter_map(|(_, task)| task.compute_time())
            .sum()
    }

    fn mark_saved(&mut self) {
        self.saved = SavedMark {
            params: self.params.clone(),
            user_results: self.user_results,
            received: results_received(&self.model),
        };
    }

    fn pane_view(&self) -> PaneView {
        self.pane_view
    }

    fn set_pane_view(&mut self, view: PaneView) {
        self.pane_view = view;
    }

    fn undo_label(&self) -> Option<String> {
        self.step_label(true)
    }

    fn redo_label(&self) -> Option<String> {
        self.step_label(false)
    }

    fn set_param(&mut self, key: &str, value: f64) -> Result<(), String> {
        self.declared.assign(&mut self.params, key, value)?;
        self.history.reset(self.params.clone());
        Ok(())
    }

    fn tab_labels(&self) -> Vec<&'static str> {
        M::TABS.iter().map(|(_, label)| *label).collect()
    }

    fn declared_params(&self) -> Vec<crate::panel::DeclaredParam> {
        let defaults = M::Params::default();
        self.declared
            .all()
            .iter()
            .map(|p| crate::panel::DeclaredParam {
                key: p.key,
                label: p.full_label(),
                unit: p.unit,
                tooltip: p.tooltip,
                min: p.min,
                max: p.max,
                integer: p.integer,
                sweep: p.sweep,
                default: p.get(&defaults),
                value: p.get(&self.params),
            })
            .collect()
    }
}

impl<M: PanelModel> PanelType for Host<M> {
    type State = DocOf<M>;

    const KIND: PanelKind = M::KIND;
    const BENCHES: &'static [BenchEntry] = M::BENCHES;
    const COMMANDS: &'static [CommandEntry] = M::COMMANDS;

    fn create() -> Self {
        Self::new(DocOf::<M>::default())
    }

    fn restore(state: Self::State, sidecar: Option<&Sidecar>) -> anyhow::Result<Self> {
        let results = state.results.clone();
        let made_from = state.made_from.clone();
        let mut host = Self::new(state);
        host.saved_made_from.clone_from(&made_from);
        match M::restore(&results, sidecar, &host.params) {
            Ok(model) => {
                host.model = model;
                // The model keyed its restored results with the current settings; they were
                // made with the saved ones.
                for (slot, digest) in host.model.slots_mut().into_iter().zip(made_from) {
                    if let Some(digest) = digest {
                        slot.set_made_from(digest);
                    }
                }
            }
            Err(error) => {
                let reason = format!("{error:#}");
                host.warning = Some(format!(
                    "saved results were not restored ({reason}); they stay in the project file \
                     until you run again to recompute them"
                ));
                host.unrestored = Some((results, reason));
            }
        }
        Ok(host)
    }
}

/// Whether each task of `model` is running, in [`Tasks::ALL`] order.
fn busy_tasks<M: PanelModel>(model: &M) -> Vec<bool> {
    model.slots().iter().map(|task| task.is_busy()).collect()
}

/// How many results each task of `model` has received, in [`Tasks::ALL`] order.
fn results_received<M: PanelModel>(model: &M) -> Vec<u64> {
    model
        .slots()
        .iter()
        .map(|task| task.results_received())
        .collect()
}

/// Computes a sweep point: the base parameters with the point's values set through their
/// declarations, then the model's evaluation.
struct Evaluator<M: PanelModel> {
    base: M::Params,
    declared: Declared<M::Params>,
    project_dir: Option<PathBuf>,
    cache: Mutex<Option<Arc<dyn Any + Send + Sync>>>,
}

impl<M: PanelModel> SweepEvaluator for Evaluator<M> {
    fn evaluate(
        &self,
        assignment: &BTreeMap<String, f64>,
        outputs: &[String],
        seed: u64,
        progress: &Progress,
        cancel: &CancelToken,
    ) -> Result<BTreeMap<String, f64>, ComputeError> {
        let mut params = self.base.clone();
        let mut seed = seed;
        for (key, &value) in assignment {
            let param = self.declared.get(key).ok_or_else(|| {
                ComputeError::invalid(key, format!("not a parameter of {}", M::KIND.name))
            })?;
            param
                .set(&mut params, value)
                .map_err(|why| ComputeError::invalid(key, why))?;
            if param.seed {
                // The declared seed, swept: the point's value is the seed.
                seed = value.round().max(0.0) as u64;
            }
        }
        let cx = SweepCx {
            project_dir: self.project_dir.as_deref(),
            cache: &self.cache,
        };
        M::evaluate(&params, outputs, seed, &cx, progress, cancel)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::field;
    use crate::params::Param;
    use crate::task::Task;

    #[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
    #[serde(default)]
    struct Params {
        factor: u64,
        seed: u64,
    }

    #[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
    enum Tab {
        #[default]
        Only,
    }

    #[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
    #[serde(default)]
    struct View {
        tab: Tab,
    }

    #[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
    #[serde(default)]
    struct Results {
        product: Option<u64>,
    }

    impl Declare for Params {
        fn declare() -> Vec<Param<Self>> {
            vec![
                Param::new("factor", "Factor f", field!(Params, factor)).range(0.0, 100.0),
                Param::new("seed", "Seed", field!(Params, seed)).seed(),
            ]
        }
    }

    /// A model whose one task multiplies the factor by the seed.
    struct Product {
        task: Task<Params, (), u64>,
    }

    impl Default for Product {
        fn default() -> Self {
            Self {
                task: Task::new("test: product"),
            }
        }
    }

    crate::panel_tasks! {
        /// The test model's one computation.
        enum ProductTask for Product;
        /// What a headless run computes.
        struct Headless;
        /// The product.
        Multiply(multiply = true): task => |model, cx| model.start_product(cx);
    }

    impl Product {
        fn start_product(&mut self, cx: &mut Cx<'_, Self>) {
            let params = cx.params.clone();
            self.task.start(&cx.runner, params.clone(), move |_| {
                Ok(params.factor * params.seed)
            });
        }
    }

    impl PanelModel for Product {
        type Params = Params;
        type View = View;
        type Results = Results;
        type Tab = Tab;

        const KIND: PanelKind = PanelKind {
            id: "product",
            name: "Product",
            description: "Multiplies two numbers.",
            field: crate::panel::Field::MachineLearning,
            paper: crate::panel::Paper {
                title: "",
                authors: "",
                venue: "ICML 2025",
                link: "",
            },
        };
        crate::tabs!(Tab { Only => "Only" });

        fn restore(
            results: &Results,
            _: Option<&Sidecar>,
            params: &Params,
        ) -> anyhow::Result<Self> {
            let mut model = Self::default();
            match results.product {
                Some(0) => anyhow::bail!("a saved product of 0 is unreadable"),
                Some(product) => model.task.set_result(params.clone(), product),
                None => {}
            }
            Ok(model)
        }

        fn save(&self, results: &mut Results, _: Option<&Sidecar>) -> anyhow::Result<()> {
            results.product = self.task.result().copied();
            Ok(())
        }

        fn tab_ui(&mut self, _: Tab, _: &mut egui::Ui, _: &mut Cx<'_, Self>) {}

        fn validate(_: &Params) -> Vec<ParamIssue> {
            Vec::new()
        }

        fn figures(&self, _: &Params, _: &View) -> Vec<PanelFigure> {
            Vec::new()
        }

        fn tables(&self, _: &Params, _: &View) -> Vec<DataTable> {
            Vec::new()
        }

        fn summary(&self, _: &Params) -> serde_json::Value {
            serde_json::json!({ "product": self.task.result() })
        }

        fn sweep_outputs() -> Vec<SweepOutput> {
            vec![SweepOutput::new("product", "Product")]
        }

        fn evaluate(
            params: &Params,
            _: &[String],
            seed: u64,
            _: &SweepCx<'_>,
            _: &Progress,
            _: &CancelToken,
        ) -> Result<BTreeMap<String, f64>, ComputeError> {
            let product = (params.factor * seed) as f64;
            Ok(BTreeMap::from([("product".to_owned(), product)]))
        }
    }

    fn doc(factor: u64, product: Option<u64>) -> DocOf<Product> {
        PanelDoc {
            params: Params { factor, seed: 3 },
            view: View::default(),
            headless: Headless { multiply: true },
            results: Results { product },
            pane_view: PaneView::Panel,
            made_from: Vec::new(),
        }
    }

    /// Whether the product task's result is stale for the host's current settings.
    fn stale(host: &Host<Product>) -> bool {
        host.model.task.is_stale(&host.params)
    }

    #[test]
    fn a_stale_result_stays_stale_after_save_and_reopen() {
        // Compute with factor 5, then change the factor: the result is stale.
        let mut host = Host::<Product>::new(doc(5, None));
        host.run_headless(&Progress::new(), &CancelToken::new())
            .expect("runs");
        assert!(!stale(&host));
        host.params.factor = 6;
        assert!(stale(&host));
        // Saved and reopened, the result still says it was made with factor 5.
        let saved = host.save(None).expect("saves");
        let saved = saved.downcast::<DocOf<Product>>().expect("its own state");
        let reopened = Host::<Product>::restore(*saved, None).expect("restores");
        assert_eq!(reopened.params.factor, 6);
        assert!(stale(&reopened), "a reopened stale result is marked stale");
        // Settings set back to the result's own: current again, as before saving.
        let mut reopened = reopened;
        reopened.params.factor = 5;
        assert!(!stale(&reopened));
        // A project saved before the digests existed reopens as before (current).
        let old = Host::<Product>::restore(doc(7, Some(21)), None).expect("restores");
        assert!(!stale(&old));
    }

    #[test]
    fn results_count_their_compute_time_until_saved() {
        let mut host = Host::<Product>::new(doc(5, None));
        assert_eq!(host.unsaved_compute_time(), std::time::Duration::ZERO);
        host.run_headless(&Progress::new(), &CancelToken::new())
            .expect("runs");
        let computed = host.model.task.compute_time().expect("the run was timed");
        assert_eq!(host.unsaved_compute_time(), computed);
        host.mark_saved();
        assert_eq!(host.unsaved_compute_time(), std::time::Duration::ZERO);
        // A restored result took no time in this session.
        let restored = Host::<Product>::restore(doc(7, Some(21)), None).expect("restores");
        assert_eq!(restored.unsaved_compute_time(), std::time::Duration::ZERO);
    }

    #[test]
    fn headless_runs_the_window_task_inline_and_results_round_trip() {
        let mut host = Host::<Product>::new(doc(5, None));
        host.run_headless(&Progress::new(), &CancelToken::new())
            .expect("runs");
        assert_eq!(host.summary()["product"], 15);
        let saved = host.save(None).expect("saves");
        let saved = saved.downcast::<DocOf<Product>>().expect("its own state");
        assert_eq!(saved.results.product, Some(15));
        let restored = Host::<Product>::restore(*saved, None).expect("restores");
        assert_eq!(restored.summary()["product"], 15);
        assert!(restored.warning.is_none());
        // A result that cannot be restored is dropped with a warning; parameters stay.
        let broken = Host::<Product>::restore(doc(7, Some(0)), None).expect("opens");
        assert!(broken.summary()["product"].is_null());
        assert_eq!(broken.params().factor, 7);
        assert!(
            broken
                .warning
                .as_deref()
                .is_some_and(|w| w.contains("unreadable"))
        );
        // ... but kept in the file until the panel computes its own.
        assert!(broken.restore_warning().is_some());
        let resaved = broken.save(None).expect("saves");
        let resaved = resaved.downcast::<DocOf<Product>>().expect("its own state");
        assert_eq!(resaved.results.product, Some(0));
        let mut recomputed = broken;
        recomputed
            .run_headless(&Progress::new(), &CancelToken::new())
            .expect("runs");
        let fresh = recomputed.save(None).expect("saves");
        let fresh = fresh.downcast::<DocOf<Product>>().expect("its own state");
        assert_eq!(fresh.results.product, Some(21));
    }

    #[test]
    fn declarations_check_set_sweep_and_name_undo_steps() {
        let mut host = Host::<Product>::new(doc(500, None));
        let issues = host.validate();
        assert!(
            issues
                .iter()
                .any(|i| i.key == "factor" && i.message.contains("outside")),
            "{issues:?}"
        );
        host.set_param("factor", 4.0).expect("in range");
        assert!(host.set_param("factor", 4.5).is_err());
        assert!(host.set_param("other", 1.0).is_err());
        assert!(host.validate().is_empty());

        // An edit is one undo step, named by its parameter.
        host.params.factor = 6;
        host.history.observe(&host.params, false);
        assert_eq!(host.undo_label().as_deref(), Some("Factor f change"));
        assert!(host.undo());
        assert_eq!(
            (host.params.factor, host.redo_label().as_deref()),
            (4, Some("Factor f change"))
        );

        // A sweep point sets its values through the declarations; sweeping the declared seed
        // makes the point's value the seed, otherwise the repeat's seed is used.
        let support = host.sweep_support();
        assert_eq!(support.params.len(), 2);
        let point = |assignment: &[(&str, f64)], seed: u64| {
            let assignment = assignment
                .iter()
                .map(|(k, v)| ((*k).to_owned(), *v))
                .collect();
            support.evaluator.evaluate(
                &assignment,
                &["product".to_owned()],
                seed,
                &Progress::new(),
                &CancelToken::new(),
            )
        };
        assert_eq!(
            point(&[("factor", 2.0)], 10).expect("evaluates")["product"],
            20.0
        );
        assert_eq!(
            point(&[("seed", 7.0)], 10).expect("evaluates")["product"],
            28.0
        );
        assert!(point(&[("depth", 1.0)], 10).is_err());
    }
}
