//! The graph view: one graph of the set drawn with its nodes coloured by subgraph centrality
//! and the T nodes the chosen strategy marks highlighted; a table of its walk-based numbers.

use benchtop_compute::ComputeError;
use benchtop_compute::rng::{derive_seed, seeded};
use benchtop_hymn::Graph;
use benchtop_hymn::centrality::{cse_score, subgraph_centrality};
use benchtop_hymn::counts::Substructure;
use benchtop_hymn::molecules::MoleculeTarget;
use benchtop_hymn::sampling::Method;
use benchtop_kit::figure::{FigureViewState, show_figure};
use benchtop_kit::host::Cx;
use benchtop_kit::task::Task;
use benchtop_kit::widgets::controls_and_view;
use serde::{Deserialize, Serialize};

use crate::HymnModel;
use crate::data::graph_set;
use crate::figures::graph_figure;
use crate::layout::spring_layout;
use crate::params::{DataParams, ExploreParams, HymnParams, Source};

/// The graph view's result.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ExploreResult {
    /// Index of the graph in the set.
    pub index: usize,
    /// The graph.
    pub graph: Graph,
    /// SC(v) = [exp A]_vv.
    pub centrality: Vec<f64>,
    /// Σ_k (A^k)_vv / k! for k = 1..K, HyMN's ranking score.
    pub score: Vec<f64>,
    /// The marked nodes, in marking order.
    pub marks: Vec<usize>,
    /// The strategy that marked them.
    pub strategy: Method,
    /// Drawing positions.
    pub positions: Vec<[f64; 2]>,
    /// Substructure counts of this graph.
    pub counts: Vec<(String, u64)>,
    /// The graph's target value.
    pub target: f64,
    /// What the target is.
    pub target_name: String,
    /// Graphs in the set.
    pub set_size: usize,
    /// Mean node count of the set.
    pub mean_nodes: f64,
}

/// What the view depends on.
pub(crate) type ExploreKey = (DataParams, usize, usize, ExploreParams, u64);

pub(crate) fn key(p: &HymnParams) -> ExploreKey {
    (
        p.data.clone(),
        p.experiment.walk_terms,
        p.experiment.max_subgraphs,
        p.explore.clone(),
        p.seed,
    )
}

/// Computes the view (generating or reading the set first).
pub fn explore(
    (data, k, t, explore, seed): &ExploreKey,
    project_dir: Option<&std::path::Path>,
) -> Result<ExploreResult, ComputeError> {
    let set = graph_set(data, *seed, project_dir)?;
    let index = explore.graph;
    let graph = set.graphs.get(index).cloned().ok_or_else(|| {
        ComputeError::invalid(
            "explore.graph",
            format!(
                "the set has {} graphs (0 to {})",
                set.graphs.len(),
                set.graphs.len() - 1
            ),
        )
    })?;
    let score = cse_score(&graph, *k);
    let mut rng = seeded(derive_seed(*seed, 77));
    let strategy = if explore.strategy == Method::Mpnn {
        Method::Centrality
    } else {
        explore.strategy
    };
    let marks = strategy.marks(*t, &score, &mut rng);
    let counts = Substructure::ALL
        .iter()
        .map(|s| (s.label().to_owned(), s.count(&graph)))
        .collect();
    Ok(ExploreResult {
        index,
        centrality: subgraph_centrality(&graph),
        positions: spring_layout(&graph, 200),
        score,
        marks,
        strategy,
        counts,
        target: set.targets[index],
        target_name: set.target_name.clone(),
        set_size: set.graphs.len(),
        mean_nodes: set.mean_nodes(),
        graph,
    })
}

/// The tab.
pub(crate) struct GraphTab {
    pub(crate) task: Task<ExploreKey, (), ExploreResult>,
    plots: FigureViewState,
}

impl Default for GraphTab {
    fn default() -> Self {
        Self {
            task: Task::new("hymn: graph view"),
            plots: FigureViewState::default(),
        }
    }
}

impl GraphTab {
    pub(crate) fn start(&mut self, cx: &mut Cx<'_, HymnModel>) {
        self.task.start_from(
            &cx.runner,
            key(cx.params),
            cx.project_dir,
            |key, dir, _job| explore(key, dir),
        );
    }

    /// The view is cheap: it follows the settings.
    pub(crate) fn react(&mut self, cx: &mut Cx<'_, HymnModel>) {
        if !self.task.is_current(&key(cx.params)) && !self.task.is_running() {
            self.start(cx);
        }
    }

    pub(crate) fn ui(&mut self, ui: &mut egui::Ui, cx: &mut Cx<'_, HymnModel>) {
        controls_and_view(
            ui,
            "hymn graph controls",
            320.0,
            &mut (self, cx),
            |(tab, cx), ui| tab.controls(ui, cx),
            |(tab, _), ui| match tab.task.result() {
                Some(r) => show_figure(ui, &graph_figure(r), &mut tab.plots),
                None => {
                    ui.label("Generate or load graphs to see one coloured by centrality.");
                }
            },
        );
    }

    fn controls(&mut self, ui: &mut egui::Ui, cx: &mut Cx<'_, HymnModel>) {
        data_controls(ui, cx);
        ui.separator();
        ui.strong("Marking");
        cx.params(
            ui,
            &[
                "explore.graph",
                "experiment.max_subgraphs",
                "experiment.walk_terms",
            ],
        );
        ui.horizontal_wrapped(|ui| {
            ui.label("Strategy");
            for m in [Method::Centrality, Method::Random, Method::FullBag] {
                ui.selectable_value(&mut cx.params.explore.strategy, m, m.label());
            }
        });
        if self
            .task
            .controls(ui, &key(cx.params), "Draw graph", "Stop")
        {
            self.start(cx);
        }
        let Some(r) = self.task.result() else {
            return;
        };
        ui.separator();
        ui.label(format!(
            "{} graphs, {:.1} nodes on average; this graph: {} = {}",
            r.set_size, r.mean_nodes, r.target_name, r.target
        ));
        egui::Grid::new("hymn counts").striped(true).show(ui, |ui| {
            for (name, count) in &r.counts {
                ui.label(name.as_str());
                ui.label(count.to_string());
                ui.end_row();
            }
        });
        ui.label("Marked (node: SC, CSE sum)");
        for &v in &r.marks {
            ui.label(format!("  {v}: {:.3}, {:.3}", r.centrality[v], r.score[v]));
        }
    }
}

/// The graph-set controls (shared by both tabs).
pub(crate) fn data_controls(ui: &mut egui::Ui, cx: &mut Cx<'_, HymnModel>) {
    ui.strong("Graphs");
    ui.horizontal(|ui| {
        ui.selectable_value(
            &mut cx.params.data.source,
            Source::Generated,
            "Random graphs",
        );
        ui.selectable_value(&mut cx.params.data.source, Source::File, "From a CSV file");
        ui.selectable_value(&mut cx.params.data.source, Source::Molecules, "Molecules");
    });
    if cx.params.data.source == Source::Molecules {
        let molecules = &mut cx.params.data.molecules;
        egui::ComboBox::from_label("Target property")
            .selected_text(molecules.target.label())
            .show_ui(ui, |ui| {
                for t in MoleculeTarget::ALL {
                    ui.selectable_value(&mut molecules.target, t, t.label());
                }
            });
    } else {
        let set = &mut cx.params.data.set;
        egui::ComboBox::from_label("Target count")
            .selected_text(set.target.label())
            .show_ui(ui, |ui| {
                for s in crate::params::TARGETS {
                    ui.selectable_value(&mut set.target, s, s.label());
                }
            });
    }
    match cx.params.data.source {
        Source::Molecules => {
            ui.label(
                "Drug-like molecules from the MolStitch offline set, parsed by RDKit: heavy \
                 atoms are nodes (label: atomic number / 10), bonds are edges; the target is \
                 the RDKit property chosen above.",
            );
            cx.params(ui, &["data.molecules.graphs", "seed"]);
        }
        Source::Generated => {
            use benchtop_hymn::generate::Family;
            let family = &mut cx.params.data.set.family;
            ui.horizontal_wrapped(|ui| {
                ui.selectable_value(family, Family::ErdosRenyi, "Erdős–Rényi");
                ui.selectable_value(family, Family::RandomRegular, "Regular");
                ui.selectable_value(family, Family::Mixed, "Both");
            });
            ui.horizontal_wrapped(|ui| {
                ui.selectable_value(family, Family::WattsStrogatz, "Watts–Strogatz");
                ui.selectable_value(family, Family::BarabasiAlbert, "Barabási–Albert");
                ui.selectable_value(family, Family::RandomGeometric, "Geometric");
                ui.selectable_value(family, Family::Structured, "All three");
            })
            .response
            .on_hover_text(
                "Small-world (ring of degree d, rewired with probability β), preferential \
                 attachment (m edges per new node) and random geometric graphs (radius r); \
                 \"All three\" takes them in turn.",
            );
            cx.params(
                ui,
                &[
                    "data.set.graphs",
                    "data.set.min_nodes",
                    "data.set.max_nodes",
                    "data.set.edge_probability",
                    "data.set.degree",
                    "data.set.rewire_probability",
                    "data.set.attach",
                    "data.set.radius",
                    "seed",
                ],
            );
        }
        Source::File => {
            benchtop_kit::widgets::file_field(
                ui,
                "Edge list",
                &mut cx.params.data.file.path,
                "graphs.csv",
                ("Edge-list CSV", &["csv"]),
            );
            ui.label(
                "Header graph,source,target,label. Rows: an edge `g,0,1,`; a node label \
                 `g,4,,0.5`; a graph label `g,,,3`. Unlabelled graphs get the target count.",
            );
            cx.param(ui, "seed");
        }
    }
}
