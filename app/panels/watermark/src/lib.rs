//! StealthInk watermark (ICML 2025): embed a user ID and a timestamp in generated text without
//! changing the model's distribution, detect and decode it without the model, attack it, and
//! compare with KGW on the same small word-level model.
//!
//! - [`params`]: the declared parameters.
//! - [`figures`]: figures, tables and summary.json.
//!
//! One task runs the engine's experiment (`benchtop_watermark::experiment::run`): it first builds
//! the language models (the KJV trigrams; or the two GRUs, trained in candle with progress and
//! cancel the first time and read from the weight cache after; or the user's GRU weights), then
//! generates and detects. The "Texts" tab shows the example pair coloured by list and z / p against length, "Evaluation" the ROC,
//! AUC and bit accuracy against length, the attack curve and the perplexity table.

/// The panel's engine, for tests and tools that drive it directly.
pub use benchtop_watermark as engine;

pub mod bench;
pub mod figures;
pub mod params;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use benchtop_compute::{CancelToken, ComputeError, Progress};
use benchtop_kit::figure::{FigureViewState, show_figure};
use benchtop_kit::host::{Cx, DocOf, Host, PanelModel, SweepCx};
use benchtop_kit::panel::{DataTable, Field, PanelFigure, PanelKind, Paper, ParamIssue, Recipe};
use benchtop_kit::project::Sidecar;
use benchtop_kit::sweep::SweepOutput;
use benchtop_kit::task::Task;
use benchtop_kit::widgets::controls_and_view;
use benchtop_watermark::attack::Attack;
use benchtop_watermark::claims::{Claim, Verdict};
use benchtop_watermark::experiment::{self, MarkedToken, ModelFiles, WatermarkResult};
use benchtop_watermark::lm::{ModelChoice, ModelReport};
use benchtop_watermark::message::bit_string;
use benchtop_watermark::scheme::Method;
use egui::text::LayoutJob;
use egui::{Color32, TextFormat};
use serde::{Deserialize, Serialize};

pub use params::PanelParams;

/// The panel.
pub type WatermarkPanel = Host<WatermarkModel>;

/// Everything the project file stores for this panel.
pub type WatermarkState = DocOf<WatermarkModel>;

/// The tabs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum WatermarkTab {
    /// The example texts and their detection.
    #[default]
    Texts,
    /// ROC, AUC, bit accuracy, attacks and perplexity.
    Evaluation,
}

/// View settings that are saved but are not parameters.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct WatermarkView {
    /// The tab shown.
    pub tab: WatermarkTab,
}

/// Results kept with the project.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct SavedResults {
    /// The last experiment.
    pub run: Option<WatermarkResult>,
}

benchtop_kit::panel_tasks! {
    /// The panel's computations.
    pub enum WatermarkTask for WatermarkModel;
    /// What `benchtop run` computes for this panel.
    pub struct HeadlessTasks;
    /// Run the experiment.
    Run(run = true): run => |m, cx| m.start_run(cx);
}

/// The panel's task and figure views.
pub struct WatermarkModel {
    run: Task<PanelParams, (), WatermarkResult>,
    plots: [FigureViewState; 3],
}

impl Default for WatermarkModel {
    fn default() -> Self {
        Self {
            run: Task::new("watermark: generate and detect"),
            plots: Default::default(),
        }
    }
}

/// Where trained GRU weights are cached: the user's private cache folder
/// (`~/.cache/benchtop/watermark-weights`, mode 0700, shared by the user's projects: the file
/// name is a hash of everything the weights depend on, and a cached file is verified before
/// use); without a home folder, a folder of this process's own in the temporary directory.
pub fn default_cache_dir() -> PathBuf {
    benchtop_kit::compute::cache::user_cache_dir("watermark-weights").unwrap_or_else(|_| {
        std::env::temp_dir().join(format!("benchtop-watermark-weights-{}", std::process::id()))
    })
}

/// The model files of a run: the weight cache and the project folder.
fn model_files(project_dir: Option<&Path>) -> ModelFiles {
    ModelFiles {
        cache_dir: Some(default_cache_dir()),
        project_dir: project_dir.map(Path::to_path_buf),
    }
}

/// Hover text of each model choice.
fn model_tooltip(choice: ModelChoice) -> &'static str {
    match choice {
        ModelChoice::Kjv => {
            "Interpolated trigram word models: A counts the even verses of the KJV Genesis and Matthew, B the odd ones. Built instantly."
        }
        ModelChoice::Gru => GRU_TOOLTIP,
        ModelChoice::GruFile => {
            "Your own weights (safetensors, PyTorch names: embedding.weight, gru.weight_ih_l0, gru.weight_hh_l0, gru.bias_ih_l0, gru.bias_hh_l0, head.weight, head.bias) for the KJV word vocabulary of the size set below; the second model is the trained KJV GRU."
        }
        ModelChoice::Synthetic => {
            "Random next-token distributions per context (the test model of the known answers)."
        }
    }
}

/// Hover text of the GRU choice, with its measured training time.
const GRU_TOOLTIP: &str = "Word-level GRUs trained in candle (embedding → GRU → linear): A on the even verses, B on the odd ones, each with its own seed. The first run trains both at once (default size, release build: 46 s on two free cores, 80–95 s while other work shares them; progress and Stop below) and caches the weights; later runs load them in well under a second.";

/// One line on the models' held-out perplexity and training.
fn model_line(m: &ModelReport) -> String {
    let mut line = format!(
        "{}: held-out perplexity {:.1} (second model {:.1}; unigram {:.1}) on {} tokens.",
        m.name,
        m.heldout_perplexity_a,
        m.heldout_perplexity_b,
        m.unigram_perplexity,
        m.heldout_tokens
    );
    if let (Some(first), Some(last)) = (m.loss_history_a.first(), m.loss_history_a.last()) {
        line.push_str(&format!(
            " Training loss {first:.3} → {last:.3} nats/token over {} epochs.",
            m.loss_history_a.len()
        ));
    }
    line
}

/// The engine name and version recorded in figure provenance.
const ENGINE: (&str, &str) = ("benchtop-watermark", env!("CARGO_PKG_VERSION"));

/// Background of a token: red list (avoided by StealthInk), another list, not scored.
fn token_colour(red: Option<bool>) -> Color32 {
    match red {
        Some(true) => Color32::from_rgb(230, 120, 120),
        Some(false) => Color32::from_rgb(150, 215, 150),
        None => Color32::from_gray(200),
    }
}

/// A text with each token on its list's background.
fn coloured(ui: &mut egui::Ui, tokens: &[MarkedToken]) {
    let mut job = LayoutJob::default();
    let font = egui::TextStyle::Body.resolve(ui.style());
    for t in tokens {
        job.append(
            &t.text,
            0.0,
            TextFormat {
                font_id: font.clone(),
                color: Color32::BLACK,
                background: token_colour(t.red),
                ..TextFormat::default()
            },
        );
        job.append(" ", 0.0, TextFormat::simple(font.clone(), Color32::BLACK));
    }
    job.wrap.max_width = ui.available_width();
    ui.label(job);
}

/// The paper's claims judged on this run, with their verdicts (the rules are the engine's
/// `claims` module; the docs page has them over seeds).
fn claims_ui(ui: &mut egui::Ui, claims: &[Claim]) {
    if claims.is_empty() {
        return;
    }
    ui.strong("The paper's claims, this run (docs/panels/watermark.md has them over seeds)");
    egui::Grid::new("watermark claims")
        .striped(true)
        .show(ui, |ui| {
            for c in claims {
                ui.label(&c.claim);
                ui.add(egui::Label::new(&c.measured).wrap());
                let colour = match c.verdict {
                    Verdict::Holds => Color32::from_rgb(40, 140, 40),
                    Verdict::HoldsPartly => Color32::from_rgb(190, 130, 0),
                    Verdict::DoesNotHold => Color32::from_rgb(200, 50, 50),
                };
                ui.colored_label(colour, c.verdict.text());
                ui.end_row();
            }
        });
}

impl WatermarkModel {
    fn start_run(&mut self, cx: &mut Cx<'_, Self>) {
        let params = cx.params.clone();
        let files = model_files(cx.project_dir);
        self.run.start(&cx.runner, params.clone(), move |job| {
            experiment::run(&params.run, params.seed, &files, &job.progress, &job.cancel)
        });
    }

    /// The model choice, the GRU settings or weights file, and the models' held-out scores.
    fn model_controls(&mut self, ui: &mut egui::Ui, cx: &mut Cx<'_, Self>) {
        ui.horizontal_wrapped(|ui| {
            ui.label("Language model");
            for choice in ModelChoice::ALL {
                ui.selectable_value(&mut cx.params.run.model, choice, choice.name())
                    .on_hover_text(model_tooltip(choice));
            }
        });
        let model = cx.params.run.model;
        if model == ModelChoice::GruFile {
            benchtop_kit::widgets::file_field(
                ui,
                "GRU weights file",
                &mut cx.params.run.weights_file,
                "weights.safetensors",
                ("Safetensors", &["safetensors"]),
            );
        }
        if matches!(model, ModelChoice::Gru | ModelChoice::GruFile) {
            cx.params(
                ui,
                &[
                    "gru_hidden",
                    "gru_embedding",
                    "gru_window",
                    "gru_epochs",
                    "gru_seed",
                ],
            );
        }
        if let Some(m) = self.run.result().and_then(|r| r.model.as_ref()) {
            ui.label(model_line(m));
        }
    }

    /// The controls shared by both tabs.
    fn controls(&mut self, ui: &mut egui::Ui, cx: &mut Cx<'_, Self>) {
        ui.heading("Message");
        ui.horizontal(|ui| {
            let label = ui.label("User ID");
            ui.add(egui::TextEdit::singleline(&mut cx.params.run.user_id).desired_width(160.0))
                .labelled_by(label.id)
                .on_hover_text("Any text; a hash of it fills the first half of the message bits.");
        });
        cx.params(ui, &["timestamp", "message_bits", "bits_per_symbol"]);
        let bits = cx.params.run.bits();
        ui.label(format!("bits {}", bit_string(&bits)))
            .on_hover_text("The message the key embeds: user-ID hash bits, then timestamp bits.");
        ui.separator();
        ui.heading("Generation");
        self.model_controls(ui, cx);
        cx.params(
            ui,
            &[
                "context",
                "temperature",
                "top_k",
                "tokens",
                "texts",
                "delta",
                "vocab",
                "key",
                "seed",
            ],
        );
        ui.separator();
        ui.heading("Attack");
        egui::ComboBox::from_label("Attack")
            .selected_text(cx.params.run.attack.name())
            .show_ui(ui, |ui| {
                for a in Attack::ALL {
                    ui.selectable_value(&mut cx.params.run.attack, a, a.name());
                }
            });
        cx.params(ui, &["attack_rate", "check_draws"]);
        if self
            .run
            .controls(ui, &cx.params.clone(), "Generate and detect", "Stop")
        {
            self.start_run(cx);
        }
    }

    fn texts_view(&mut self, ui: &mut egui::Ui, cx: &Cx<'_, Self>) {
        let Some(r) = self.run.result() else {
            self.run.placeholder(
                ui,
                "Press \"Generate and detect\" to generate plain and watermarked texts.",
            );
            return;
        };
        let e = &r.example;
        let d = e.watermarked_curve.last().copied().unwrap_or((0, 0.0, 1.0));
        let (right, total) = e
            .decoded_bits
            .iter()
            .zip(&r.bits)
            .fold((0, 0), |(a, n), (x, y)| (a + usize::from(x == y), n + 1));
        ui.label(format!(
            "Watermarked example after {} at rate {:.2}: exact p = {:.2e} (z = {:.2}); decoded {} ({right}/{total} bits right).",
            cx.params.run.attack.name(),
            cx.params.run.attack_rate,
            d.2,
            d.1,
            bit_string(&e.decoded_bits),
        ));
        ui.label("Background: red = the red list of the token's message position (StealthInk avoids it), green = another list, grey = not scored (first H tokens, repeated seed).");
        egui::ScrollArea::vertical()
            .id_salt("watermark texts")
            .max_height(260.0)
            .show(ui, |ui| {
                ui.columns(2, |cols| {
                    cols[0].strong(format!("Plain: {} …", e.prompt));
                    coloured(&mut cols[0], &e.plain);
                    cols[1].strong(format!("StealthInk: {} …", e.prompt));
                    coloured(&mut cols[1], &e.watermarked);
                });
            });
        show_figure(ui, &figures::detection_curve(r), &mut self.plots[0]);
    }

    fn evaluation_view(&mut self, ui: &mut egui::Ui, cx: &Cx<'_, Self>) {
        let Some(r) = self.run.result() else {
            self.run
                .placeholder(ui, "Press \"Generate and detect\" to evaluate.");
            return;
        };
        egui::Grid::new("watermark methods")
            .striped(true)
            .show(ui, |ui| {
                for h in [
                    "method",
                    "perplexity",
                    "2nd model",
                    "AUC",
                    "TPR@1%FPR",
                    "bit acc.",
                ] {
                    ui.strong(h);
                }
                ui.end_row();
                for m in &r.methods {
                    let last = |v: &[experiment::AtLength]| {
                        v.last()
                            .map_or("–".to_owned(), |p| format!("{:.3}", p.value))
                    };
                    ui.label(m.method.name());
                    ui.label(format!("{:.2}", m.perplexity));
                    ui.label(format!("{:.2}", m.perplexity_second));
                    ui.label(last(&m.auc_by_tokens));
                    ui.label(format!("{:.3}", m.tpr_at_1pct_fpr));
                    ui.label(last(&m.bit_accuracy_by_tokens));
                    ui.end_row();
                }
            });
        ui.label(format!(
            "Bit accuracy: chance is {} (plain text decodes at it: a position with no scored \
             token or tied counts is settled by a keyed coin, never by a fixed symbol).",
            experiment::BIT_ACCURACY_CHANCE
        ));
        let d = &r.distribution_check;
        ui.label(format!(
            "Distribution check ({} permutations, c = {}, V = {}): max |E p′ − p| = {:.1e} \
             (tolerance {:.1e}); red-list mass {:.3} → {:.3}. Null calibration over {} plain \
             texts: KS distance {:.3} (KS test p = {:.2}) for the exact p-values, {:.3} (p = \
             {:.1e}) for the paper's Gaussian ones.",
            d.draws,
            d.bits_per_symbol,
            d.vocab,
            d.max_abs_deviation,
            d.tolerance,
            d.red_mass_before,
            d.red_mass_after,
            r.null_texts,
            r.null_ks_distance_exact,
            r.null_ks_p_exact,
            r.null_ks_distance_gauss,
            r.null_ks_p_gauss
        ));
        claims_ui(ui, &r.claims);
        let half = (ui.available_height() / 2.0).max(200.0);
        ui.allocate_ui(egui::vec2(ui.available_width(), half), |ui| {
            show_figure(ui, &figures::roc(r), &mut self.plots[1]);
        });
        show_figure(
            ui,
            &figures::accuracy(r, cx.params.run.attack.name()),
            &mut self.plots[2],
        );
    }
}

impl PanelModel for WatermarkModel {
    type Params = PanelParams;
    type View = WatermarkView;
    type Results = SavedResults;
    type Tab = WatermarkTab;

    const KIND: PanelKind = PanelKind {
        id: "watermark",
        name: "StealthInk watermark",
        description: "Embed a user ID and timestamp in generated text without changing the model's distribution, detect and decode it without the model, attack it, and compare with KGW.",
        field: Field::MachineLearning,
        paper: Paper {
            title: "StealthInk: A Multi-bit and Stealthy Watermark for Large Language Models",
            authors: "Ya Jiang, Chuxiong Wu, Massieh Kordi Boroujeny, Brian Mark, Kai Zeng",
            venue: "ICML 2025",
            link: "https://github.com/yajiang4215/StealthInk_A-Multi-bit-and-Stealthy-Watermark-for-Large-Language-Models",
        },
    };

    benchtop_kit::tabs!(WatermarkTab {
        Texts => "Texts",
        Evaluation => "Evaluation",
    });

    const BENCHES: &'static [benchtop_kit::cli::BenchEntry] = bench::BENCHES;

    fn restore(
        results: &SavedResults,
        _sidecar: Option<&Sidecar>,
        params: &PanelParams,
    ) -> anyhow::Result<Self> {
        let mut model = Self::default();
        if let Some(result) = &results.run {
            model.run.set_result(params.clone(), result.clone());
        }
        Ok(model)
    }

    fn save(&self, results: &mut SavedResults, _sidecar: Option<&Sidecar>) -> anyhow::Result<()> {
        results.run = self.run.result().cloned();
        Ok(())
    }

    fn tab_ui(&mut self, tab: WatermarkTab, ui: &mut egui::Ui, cx: &mut Cx<'_, Self>) {
        controls_and_view(
            ui,
            "watermark controls",
            300.0,
            &mut (self, cx),
            |(model, cx), ui| model.controls(ui, cx),
            |(model, cx), ui| match tab {
                WatermarkTab::Texts => model.texts_view(ui, cx),
                WatermarkTab::Evaluation => model.evaluation_view(ui, cx),
            },
        );
    }

    fn validate(params: &PanelParams) -> Vec<ParamIssue> {
        ParamIssue::from_result("run", params.run.validate())
            .into_iter()
            .collect()
    }

    fn figures(&self, params: &PanelParams, _view: &WatermarkView) -> Vec<PanelFigure> {
        let recipe = Recipe::new(ENGINE, params, Some(params.seed));
        self.run
            .result()
            .map(|r| {
                vec![
                    recipe.figure("watermark-detection-curve", figures::detection_curve(r)),
                    recipe.figure("watermark-roc", figures::roc(r)),
                    recipe.figure(
                        "watermark-accuracy",
                        figures::accuracy(r, params.run.attack.name()),
                    ),
                ]
            })
            .unwrap_or_default()
    }

    fn tables(&self, _params: &PanelParams, _view: &WatermarkView) -> Vec<DataTable> {
        self.run
            .result()
            .map(|r| vec![figures::methods_table(r), figures::attack_table(r)])
            .unwrap_or_default()
    }

    fn summary(&self, params: &PanelParams) -> serde_json::Value {
        self.run.result().map_or(serde_json::Value::Null, |r| {
            figures::summary(r, params.run.attack.name())
        })
    }

    fn sweep_outputs() -> Vec<SweepOutput> {
        vec![
            SweepOutput::new("auc", "StealthInk AUC at full length"),
            SweepOutput::new("tpr_at_1pct_fpr", "StealthInk TPR at 1 % FPR"),
            SweepOutput::new("bit_accuracy", "StealthInk bit accuracy at full length"),
            SweepOutput::new("perplexity_stealthink", "StealthInk perplexity"),
            SweepOutput::new("perplexity_kgw", "KGW perplexity"),
        ]
    }

    fn evaluate(
        params: &PanelParams,
        _outputs: &[String],
        seed: u64,
        cx: &SweepCx<'_>,
        progress: &Progress,
        cancel: &CancelToken,
    ) -> Result<BTreeMap<String, f64>, ComputeError> {
        let r = experiment::run(
            &params.run,
            seed,
            &model_files(cx.project_dir),
            progress,
            cancel,
        )?;
        let get = |m: Method| r.methods.iter().find(|x| x.method == m);
        let last = |v: &[experiment::AtLength]| v.last().map_or(f64::NAN, |p| p.value);
        let s = get(Method::StealthInk);
        Ok(BTreeMap::from([
            (
                "auc".to_owned(),
                s.map_or(f64::NAN, |m| last(&m.auc_by_tokens)),
            ),
            (
                "tpr_at_1pct_fpr".to_owned(),
                s.map_or(f64::NAN, |m| m.tpr_at_1pct_fpr),
            ),
            (
                "bit_accuracy".to_owned(),
                s.map_or(f64::NAN, |m| last(&m.bit_accuracy_by_tokens)),
            ),
            (
                "perplexity_stealthink".to_owned(),
                s.map_or(f64::NAN, |m| m.perplexity),
            ),
            (
                "perplexity_kgw".to_owned(),
                get(Method::Kgw).map_or(f64::NAN, |m| m.perplexity),
            ),
        ]))
    }
}
