//! Declared parameters: each numeric parameter of a panel described once (key, label with unit
//! and symbol, tooltip, range, whether it is a whole number, how it is edited), and everything
//! else derived from that one description: the widget and its tooltip, the range check when a
//! project is opened, the parameters sweeps may vary and how a sweep point sets them, the name
//! of an undo step, and the defaults `benchtop params` prints.

use std::fmt;
use std::sync::Arc;

use crate::panel::ParamIssue;
use crate::sweep::SweepParam;
use crate::widgets::labelled;

/// A number a parameter can hold: `f64`, `f32` or a count.
pub trait Numeric: Copy + Send + Sync + 'static {
    /// Whether only whole numbers make sense.
    const INTEGER: bool;
    /// The smallest value the type holds exactly, as `f64`.
    const LOWEST: f64;
    /// The largest value the type holds exactly, as `f64`.
    const HIGHEST: f64;

    /// The value as `f64`.
    fn to_f64(self) -> f64;

    /// The nearest value of this type to `value` (counts round and clamp at their limits).
    fn from_f64(value: f64) -> Self;
}

impl Numeric for f64 {
    const INTEGER: bool = false;
    const LOWEST: f64 = f64::MIN;
    const HIGHEST: f64 = f64::MAX;

    fn to_f64(self) -> f64 {
        self
    }

    fn from_f64(value: f64) -> Self {
        value
    }
}

impl Numeric for f32 {
    const INTEGER: bool = false;
    const LOWEST: f64 = f32::MIN as f64;
    const HIGHEST: f64 = f32::MAX as f64;

    fn to_f64(self) -> f64 {
        f64::from(self)
    }

    fn from_f64(value: f64) -> Self {
        value as f32
    }
}

/// 2⁵³: every whole number up to it is exact in `f64`.
const EXACT_IN_F64: f64 = 9_007_199_254_740_992.0;

macro_rules! count_numeric {
    ($($t:ty),*) => {$(
        impl Numeric for $t {
            const INTEGER: bool = true;
            const LOWEST: f64 = if (<$t>::MIN as f64) < -EXACT_IN_F64 {
                -EXACT_IN_F64
            } else {
                <$t>::MIN as f64
            };
            const HIGHEST: f64 = if (<$t>::MAX as f64) > EXACT_IN_F64 {
                EXACT_IN_F64
            } else {
                <$t>::MAX as f64
            };

            fn to_f64(self) -> f64 {
                self as f64
            }

            fn from_f64(value: f64) -> Self {
                // `as` saturates at the type's limits and maps NaN to 0.
                value.round() as $t
            }
        }
    )*};
}

count_numeric!(usize, u32, u64, i32, i64);

/// How a parameter is edited.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Widget {
    /// A label followed by a number field dragged or typed (the default).
    Drag,
    /// A slider with the label after it.
    Slider,
}

type Getter<P> = Arc<dyn Fn(&P) -> f64 + Send + Sync>;

/// The two accessors of one field of `P` holding a `T` (what [`field!`](crate::field) makes).
pub type Field<P, T> = (fn(&P) -> &T, fn(&mut P) -> &mut T);
type Setter<P> = Arc<dyn Fn(&mut P, f64) -> Result<(), String> + Send + Sync>;

/// One numeric parameter of a panel whose parameters are `P`.
pub struct Param<P> {
    /// The key: sweeps, `benchtop run --set` and messages name the parameter by it
    /// (e.g. `analytic.k_c`).
    pub key: &'static str,
    /// Sentence-case label with the paper's symbol (e.g. `Decorrelation k_c`), as the widget
    /// shows it.
    pub label: &'static str,
    /// The part of the panel it belongs to (e.g. `Monte Carlo`), which names it among all the
    /// panel's parameters (sweeps, undo steps, messages); empty for none.
    pub group: &'static str,
    /// Unit shown after the number (e.g. ` h`), empty for none.
    pub unit: &'static str,
    /// What it does, shown on hover.
    pub tooltip: &'static str,
    /// Smallest accepted value.
    pub min: f64,
    /// Largest accepted value.
    pub max: f64,
    /// Whether only whole numbers make sense (taken from the field's type).
    pub integer: bool,
    /// Whether the widget spaces values logarithmically.
    pub log: bool,
    /// How it is edited.
    pub widget: Widget,
    /// Drag speed of a number field (value change per pixel).
    pub speed: f64,
    /// Whether sweeps may vary it.
    pub sweep: bool,
    /// Whether it is the seed of the computation sweeps record: a sweep that varies it runs
    /// each point with its value as the seed, instead of the repeat's derived seed.
    pub seed: bool,
    get: Getter<P>,
    set: Setter<P>,
}

impl<P> Clone for Param<P> {
    fn clone(&self) -> Self {
        Self {
            key: self.key,
            label: self.label,
            group: self.group,
            unit: self.unit,
            tooltip: self.tooltip,
            min: self.min,
            max: self.max,
            integer: self.integer,
            log: self.log,
            widget: self.widget,
            speed: self.speed,
            sweep: self.sweep,
            seed: self.seed,
            get: Arc::clone(&self.get),
            set: Arc::clone(&self.set),
        }
    }
}

impl<P> fmt::Debug for Param<P> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Param")
            .field("key", &self.key)
            .field("label", &self.label)
            .field("range", &(self.min, self.max))
            .field("integer", &self.integer)
            .finish_non_exhaustive()
    }
}

/// `field!(Params, a.b.c)`: the pair of accessors of field `a.b.c` of `Params` (a panel's
/// parameters), for [`Param::new`].
#[macro_export]
macro_rules! field {
    ($params:ty, $($path:ident).+) => {
        (
            |p: &$params| &p.$($path).+,
            |p: &mut $params| &mut p.$($path).+,
        )
    };
}

impl<P: 'static> Param<P> {
    /// The parameter `key`, labelled `label`, stored in the field that `field` reaches (see
    /// [`field!`](crate::field)); accepted over the range its type holds exactly until
    /// [`Param::range`] narrows it; offered to sweeps.
    pub fn new<T: Numeric>(key: &'static str, label: &'static str, field: Field<P, T>) -> Self {
        let (read, write) = field;
        Self {
            key,
            label,
            group: "",
            unit: "",
            tooltip: "",
            min: T::LOWEST,
            max: T::HIGHEST,
            integer: T::INTEGER,
            log: false,
            widget: Widget::Drag,
            speed: if T::INTEGER { 1.0 } else { 0.01 },
            sweep: true,
            seed: false,
            get: Arc::new(move |p| read(p).to_f64()),
            set: Arc::new(move |p, v| {
                *write(p) = T::from_f64(v);
                Ok(())
            }),
        }
    }

    /// A parameter whose value is computed from the parameters and written back by `set`,
    /// which may refuse (e.g. the slope of a spectrum shape that is one variant of an enum).
    pub fn computed(
        key: &'static str,
        label: &'static str,
        integer: bool,
        get: impl Fn(&P) -> f64 + Send + Sync + 'static,
        set: impl Fn(&mut P, f64) -> Result<(), String> + Send + Sync + 'static,
    ) -> Self {
        Self {
            key,
            label,
            group: "",
            unit: "",
            tooltip: "",
            min: f64::MIN,
            max: f64::MAX,
            integer,
            log: false,
            widget: Widget::Drag,
            speed: if integer { 1.0 } else { 0.01 },
            sweep: true,
            seed: false,
            get: Arc::new(get),
            set: Arc::new(set),
        }
    }

    /// The part of the panel it belongs to, e.g. `Monte Carlo`.
    #[must_use]
    pub fn in_group(mut self, group: &'static str) -> Self {
        self.group = group;
        self
    }

    /// The label among all the panel's parameters: `Group: label`, or the label.
    pub fn full_label(&self) -> String {
        if self.group.is_empty() {
            self.label.to_owned()
        } else {
            format!("{}: {}", self.group, self.label)
        }
    }

    /// Accepted values `min..=max`.
    #[must_use]
    pub fn range(mut self, min: f64, max: f64) -> Self {
        self.min = min;
        self.max = max;
        self
    }

    /// The unit shown after the number, e.g. ` h` (with its leading space).
    #[must_use]
    pub fn unit(mut self, unit: &'static str) -> Self {
        self.unit = unit;
        self
    }

    /// What the parameter does, shown on hover.
    #[must_use]
    pub fn tooltip(mut self, tooltip: &'static str) -> Self {
        self.tooltip = tooltip;
        self
    }

    /// Logarithmic widget spacing.
    #[must_use]
    pub fn log(mut self) -> Self {
        self.log = true;
        self
    }

    /// Edited with a slider.
    #[must_use]
    pub fn slider(mut self) -> Self {
        self.widget = Widget::Slider;
        self
    }

    /// Drag speed of the number field.
    #[must_use]
    pub fn speed(mut self, speed: f64) -> Self {
        self.speed = speed;
        self
    }

    /// The seed of what sweeps record: sweeping it gives each point its value as the seed
    /// (repeats then share it); otherwise each repeat gets its own derived seed.
    #[must_use]
    pub fn seed(mut self) -> Self {
        self.seed = true;
        self
    }

    /// Not offered to sweeps (a parameter that only makes sense as a setting).
    #[must_use]
    pub fn no_sweep(mut self) -> Self {
        self.sweep = false;
        self
    }

    /// Its value in `params`.
    pub fn get(&self, params: &P) -> f64 {
        (self.get)(params)
    }

    /// Sets it in `params` (counts are rounded); a computed parameter may refuse.
    pub fn set(&self, params: &mut P, value: f64) -> Result<(), String> {
        (self.set)(params, value)
            .map_err(|why| format!("{} ({}): {why}", self.full_label(), self.key))
    }

    /// The problem with its value in `params`, if any: not a number, or outside its range.
    pub fn issue(&self, params: &P) -> Option<ParamIssue> {
        let value = self.get(params);
        let bad = if value.is_nan() {
            Some("is not a number".to_owned())
        } else if value < self.min || value > self.max {
            Some(format!(
                "= {value} is outside the accepted {}..={}",
                self.min, self.max
            ))
        } else {
            None
        };
        bad.map(|what| ParamIssue {
            key: self.key.to_owned(),
            message: format!("{} ({}) {what}", self.full_label(), self.key),
        })
    }

    /// Sets it in `params` from a user's value, refusing one outside the range or, for a
    /// count, not a whole number.
    pub fn assign(&self, params: &mut P, value: f64) -> Result<(), String> {
        if !value.is_finite() || value < self.min || value > self.max {
            return Err(format!(
                "{} ({}) = {value} is outside the accepted {}..={}",
                self.full_label(),
                self.key,
                self.min,
                self.max
            ));
        }
        if self.integer && value.fract() != 0.0 {
            return Err(format!(
                "{} ({}) = {value}: a whole number is needed",
                self.full_label(),
                self.key
            ));
        }
        self.set(params, value)
    }

    /// What sweeps are offered, with the value in `params` as the centre of the default grid.
    pub fn sweep_param(&self, params: &P) -> SweepParam {
        SweepParam::new(
            self.key,
            &self.full_label(),
            self.get(params),
            self.min,
            self.max,
            self.integer,
        )
    }

    /// The parameter's widget for `params`: a label and number field, or a slider with the
    /// label after it; the tooltip on hover.
    pub fn ui(&self, ui: &mut egui::Ui, params: &mut P) -> egui::Response {
        self.ui_within(ui, params, self.min, self.max)
    }

    /// The widget with its range narrowed to `min..=max` (e.g. a wavenumber slider up to the
    /// current truncation).
    pub fn ui_within(
        &self,
        ui: &mut egui::Ui,
        params: &mut P,
        min: f64,
        max: f64,
    ) -> egui::Response {
        let mut value = self.get(params);
        let response = match self.widget {
            Widget::Drag => {
                let mut drag = egui::DragValue::new(&mut value)
                    .range(min..=max)
                    .speed(self.speed)
                    .suffix(self.unit);
                if self.integer {
                    drag = drag.fixed_decimals(0);
                }
                labelled(ui, self.label, drag)
            }
            Widget::Slider => {
                let before = value;
                let mut slider = egui::Slider::new(&mut value, min..=max)
                    .logarithmic(self.log)
                    .suffix(self.unit)
                    .text(self.label);
                if self.integer {
                    slider = slider.integer();
                }
                let response = ui.add(slider);
                if let Some(fine) = self.fine_drag(ui, &response, before, min, max) {
                    value = fine;
                }
                response
            }
        };
        let response = match (self.widget, self.tooltip.is_empty()) {
            (_, true) => response,
            (Widget::Drag, false) => response.on_hover_text(self.tooltip),
            (Widget::Slider, false) => {
                response.on_hover_text(format!("{}\n\n{SLIDER_HINT}", self.tooltip))
            }
        };
        let before = self.get(params);
        if response.changed() || value.to_bits() != before.to_bits() {
            // The widget keeps the value in range; a computed parameter that refuses keeps
            // its old value.
            let _ = self.set(params, value);
        }
        response
    }
}

/// How a slider is handled finely, added to its tooltip.
pub const SLIDER_HINT: &str =
    "Hold Shift while dragging for 10× finer steps; click the number to type a value.";

/// How much slower a slider moves with Shift held.
const FINE_FACTOR: f64 = 10.0;

impl<P: 'static> Param<P> {
    /// While the slider's rail is dragged with Shift held, the value the drag gives at a tenth
    /// of the speed (relative to where it was, not where the pointer is); `None` otherwise.
    /// The position along the rail is kept between frames, so that whole numbers move too.
    fn fine_drag(
        &self,
        ui: &egui::Ui,
        response: &egui::Response,
        before: f64,
        min: f64,
        max: f64,
    ) -> Option<f64> {
        let key = response.id.with("fine drag");
        let started: Option<f64> = ui.data(|d| d.get_temp(key));
        let shift = ui.input(|i| i.modifiers.shift_only());
        // A drag begun with Shift stays fine to its end, the release included (where the
        // slider would otherwise jump to the pointer).
        let dragging = ui.ctx().is_being_dragged(response.id) || response.drag_stopped();
        if !(dragging && (shift || started.is_some())) || max <= min {
            ui.data_mut(|d| d.remove::<f64>(key));
            return None;
        }
        let rail = f64::from(ui.spacing().slider_width.max(1.0));
        let moved = f64::from(ui.input(|i| i.pointer.delta().x));
        let start = started.unwrap_or_else(|| self.fraction(before, min, max));
        let fraction = (start + moved / rail / FINE_FACTOR).clamp(0.0, 1.0);
        if response.drag_stopped() {
            ui.data_mut(|d| d.remove::<f64>(key));
        } else {
            ui.data_mut(|d| d.insert_temp(key, fraction));
        }
        let value = self.at_fraction(fraction, min, max);
        Some(if self.integer { value.round() } else { value })
    }

    /// Where `value` sits along a rail from `min` to `max` (0 to 1), spaced as the widget
    /// spaces values.
    fn fraction(&self, value: f64, min: f64, max: f64) -> f64 {
        let t = if self.log && min > 0.0 {
            (value / min).ln() / (max / min).ln()
        } else {
            (value - min) / (max - min)
        };
        t.clamp(0.0, 1.0)
    }

    /// The value at `fraction` along a rail from `min` to `max` (see [`Self::fraction`]).
    fn at_fraction(&self, fraction: f64, min: f64, max: f64) -> f64 {
        if self.log && min > 0.0 {
            min * (max / min).powf(fraction)
        } else {
            min + fraction * (max - min)
        }
    }
}

/// `params`, each put in `group` (e.g. the tab they belong to): sweeps, undo steps and
/// messages then call them `Group: label`.
pub fn grouped<P: 'static>(group: &'static str, params: Vec<Param<P>>) -> Vec<Param<P>> {
    params.into_iter().map(|p| p.in_group(group)).collect()
}

/// A panel's parameters type declares its numeric parameters, once.
pub trait Declare: Sized + 'static {
    /// Every numeric parameter, in the order widgets, sweeps and `benchtop params` list them.
    fn declare() -> Vec<Param<Self>>;
}

/// The parameters of one panel, as declared.
pub struct Declared<P> {
    params: Vec<Param<P>>,
}

impl<P> Clone for Declared<P> {
    fn clone(&self) -> Self {
        Self {
            params: self.params.clone(),
        }
    }
}

impl<P: 'static> Declared<P> {
    /// The declaration list; keys must be unique.
    pub fn new(params: Vec<Param<P>>) -> Self {
        debug_assert!(
            params
                .iter()
                .enumerate()
                .all(|(i, p)| params[i + 1..].iter().all(|q| q.key != p.key)),
            "parameter keys are unique"
        );
        Self { params }
    }

    /// Every parameter, in declaration order.
    pub fn all(&self) -> &[Param<P>] {
        &self.params
    }

    /// The parameter `key`.
    pub fn get(&self, key: &str) -> Option<&Param<P>> {
        self.params.iter().find(|p| p.key == key)
    }

    /// Draws the widget of parameter `key` (nothing, with a note in debug builds, for an
    /// undeclared key).
    pub fn ui(&self, ui: &mut egui::Ui, key: &str, params: &mut P) -> Option<egui::Response> {
        let param = self.get(key);
        debug_assert!(param.is_some(), "parameter `{key}` is not declared");
        param.map(|param| param.ui(ui, params))
    }

    /// Every declared parameter whose value in `params` is out of its range.
    pub fn issues(&self, params: &P) -> Vec<ParamIssue> {
        self.params.iter().filter_map(|p| p.issue(params)).collect()
    }

    /// What sweeps may vary.
    pub fn sweep_params(&self, params: &P) -> Vec<SweepParam> {
        self.params
            .iter()
            .filter(|p| p.sweep)
            .map(|p| p.sweep_param(params))
            .collect()
    }

    /// Sets `key` to `value` in `params`, refusing an unknown key or a value out of range.
    pub fn assign(&self, params: &mut P, key: &str, value: f64) -> Result<(), String> {
        let param = self.get(key).ok_or_else(|| {
            let known: Vec<&str> = self.params.iter().map(|p| p.key).collect();
            format!(
                "`{key}` is not a parameter of this panel (it has {})",
                known.join(", ")
            )
        })?;
        param.assign(params, value)
    }

    /// The full label of the first declared parameter whose value differs between `a` and
    /// `b`.
    pub fn first_difference(&self, a: &P, b: &P) -> Option<String> {
        self.params
            .iter()
            .find(|p| p.get(a).to_bits() != p.get(b).to_bits())
            .map(Param::full_label)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Clone, Debug, Default, PartialEq)]
    struct Inner {
        rate: f64,
    }

    #[derive(Clone, Debug, Default, PartialEq)]
    struct Demo {
        size: usize,
        inner: Inner,
    }

    fn declared() -> Declared<Demo> {
        Declared::new(vec![
            Param::new("size", "Lattice size L", field!(Demo, size))
                .range(4.0, 4096.0)
                .in_group("Monte Carlo"),
            Param::new("inner.rate", "Learning rate η", field!(Demo, inner.rate))
                .range(1e-6, 1.0)
                .log(),
        ])
    }

    #[test]
    fn types_ranges_and_assignment_come_from_the_declaration() {
        let declared = declared();
        let mut demo = Demo::default();
        assert!(declared.get("size").is_some_and(|p| p.integer));
        assert!(declared.get("inner.rate").is_some_and(|p| !p.integer));
        declared.assign(&mut demo, "size", 64.0).unwrap();
        declared.assign(&mut demo, "inner.rate", 0.1).unwrap();
        assert_eq!((demo.size, demo.inner.rate), (64, 0.1));
        let refused = declared.assign(&mut demo, "size", 64.5).unwrap_err();
        assert!(refused.contains("whole number"), "{refused}");
        let refused = declared.assign(&mut demo, "inner.rate", 2.0).unwrap_err();
        assert!(refused.contains("inner.rate") && refused.contains("outside"));
        let unknown = declared.assign(&mut demo, "beta", 1.0).unwrap_err();
        assert!(unknown.contains("size, inner.rate"), "{unknown}");
    }

    #[test]
    fn issues_name_the_key_and_sweeps_get_the_current_value() {
        let declared = declared();
        let demo = Demo {
            size: 2,
            inner: Inner { rate: f64::NAN },
        };
        let issues = declared.issues(&demo);
        assert_eq!(issues.len(), 2);
        assert_eq!(issues[0].key, "size");
        assert!(issues[1].message.contains("not a number"));
        let sweeps = declared.sweep_params(&Demo {
            size: 32,
            ..Demo::default()
        });
        assert_eq!((sweeps[0].current, sweeps[0].integer), (32.0, true));
        let changed = Demo {
            size: 32,
            ..Demo::default()
        };
        assert_eq!(
            declared
                .first_difference(&Demo::default(), &changed)
                .as_deref(),
            Some("Monte Carlo: Lattice size L")
        );
        assert_eq!(sweeps[0].label, "Monte Carlo: Lattice size L");
        assert_eq!(declared.first_difference(&changed, &changed), None);
    }
}
