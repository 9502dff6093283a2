//! HyMN subgraph GNN (Southern et al., ICML 2025): subgraph GNNs that mark the nodes of
//! highest walk-based centrality.
//!
//! Two tabs: the graph view (one graph coloured by subgraph centrality, the marked nodes
//! highlighted; [`graph_tab`]) and the comparison (the MPNN, random marking, centrality
//! marking with and without the CSE, the full bag, and the CSE baselines MPNN+CSE and
//! random+CSE trained side by side; test MAE and time per epoch against T; the verdict on
//! whether central marks help beyond the CSE feature ([`verdict`]); the perturbation scatter;
//! [`train_tab`]). The computation is `benchtop_hymn`'s.

use std::collections::BTreeMap;

use benchtop_compute::{CancelToken, ComputeError, Progress};
use benchtop_hymn::sampling::Method;
use benchtop_hymn::train::{ExperimentResult, run};
use benchtop_kit::host::{Cx, DocOf, Host, PanelModel, SweepCx};
use benchtop_kit::panel::{DataTable, Field, PanelFigure, PanelKind, Paper, ParamIssue, Recipe};
use benchtop_kit::project::Sidecar;
use benchtop_kit::sweep::SweepOutput;
use serde::{Deserialize, Serialize};

/// The panel's engine, for tests and tools that drive it directly.
pub use benchtop_hymn as engine;

pub mod bench;
pub mod data;
pub mod figures;
pub mod graph_tab;
pub mod layout;
pub mod params;
pub mod train_tab;
pub mod verdict;

pub use graph_tab::ExploreResult;
pub use params::{DataParams, ExploreParams, HymnParams, Source};

use graph_tab::GraphTab;
use train_tab::TrainTab;

/// The panel.
pub type HymnPanel = Host<HymnModel>;

/// Everything the project file stores for this panel.
pub type HymnState = DocOf<HymnModel>;

/// The tabs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum HymnTab {
    /// One graph and its centrality.
    #[default]
    Graph,
    /// The strategies trained side by side.
    Compare,
}

/// View settings that are saved but are not parameters.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct HymnView {
    /// The tab shown.
    pub tab: HymnTab,
}

/// Results kept with the project.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct SavedResults {
    /// The graph view.
    pub graph: Option<ExploreResult>,
    /// The comparison.
    pub compare: Option<ExperimentResult>,
}

benchtop_kit::panel_tasks! {
    /// The panel's computations.
    pub enum HymnTask for HymnModel;
    /// What `benchtop run` computes for this panel.
    pub struct HeadlessTasks;
    /// The graph view.
    Graph(graph = true): graph.task => |m, cx| m.graph.start(cx);
    /// The comparison.
    Compare(compare = true): compare.task => |m, cx| m.compare.start(cx);
}

/// The panel's tabs and results.
#[derive(Default)]
pub struct HymnModel {
    graph: GraphTab,
    compare: TrainTab,
}

/// The engine name and version recorded in figure provenance.
const ENGINE: (&str, &str) = ("benchtop-hymn", env!("CARGO_PKG_VERSION"));

/// `summary.json`: per method a list over T of `{subgraphs, test_mae, seconds_per_epoch}`,
/// the test MAE of the constant prediction (the training median), the runs that do not beat it,
/// the perturbation's Spearman ρ, and HyMN against its baselines at each T with the verdict.
pub fn summary_of(r: &ExperimentResult) -> serde_json::Value {
    let mut methods = serde_json::Map::new();
    for m in Method::ALL {
        let runs: Vec<_> = r
            .runs
            .iter()
            .filter(|x| x.method == m)
            .map(|x| {
                serde_json::json!({
                    "subgraphs": x.subgraphs,
                    "test_mae": x.test_mae,
                    "seconds_per_epoch": x.seconds_per_epoch,
                })
            })
            .collect();
        if !runs.is_empty() {
            methods.insert(m.label().to_owned(), serde_json::Value::Array(runs));
        }
    }
    let comparisons: Vec<serde_json::Value> = verdict::comparisons(r)
        .iter()
        .map(|c| {
            let ratio = |v: Option<f64>| v.map(|v| c.hymn / v);
            serde_json::json!({
                "subgraphs": c.t,
                "centrality+CSE": c.hymn,
                "random": c.random,
                "MPNN+CSE": c.mpnn_cse,
                "random+CSE": c.random_cse,
                "ratio_to_random": ratio(c.random),
                "ratio_to_mpnn_cse": ratio(c.mpnn_cse),
                "ratio_to_random_cse": ratio(c.random_cse),
            })
        })
        .collect();
    serde_json::json!({
        "methods": methods,
        "constant_test_mae": r.constant_test_mae,
        "uninformative": r.uninformative(),
        "perturbation_vs_walks_spearman": r.perturbation.as_ref().map(|p| p.spearman),
        "comparisons": comparisons,
        "verdict": verdict::line(r),
    })
}

/// The sweep outputs: each method's test MAE at its largest T, and the perturbation ρ.
fn sweep_values(r: &ExperimentResult) -> BTreeMap<String, f64> {
    let mut out = BTreeMap::new();
    for x in &r.runs {
        out.insert(format!("mae_{}", slug(x.method)), x.test_mae);
    }
    if let Some(p) = &r.perturbation {
        out.insert("perturbation_vs_walks_spearman".to_owned(), p.spearman);
    }
    out
}

fn slug(m: Method) -> &'static str {
    match m {
        Method::Mpnn => "mpnn",
        Method::Random => "random",
        Method::Centrality => "centrality",
        Method::CentralityCse => "centrality_cse",
        Method::FullBag => "full_bag",
        Method::MpnnCse => "mpnn_cse",
        Method::RandomCse => "random_cse",
    }
}

impl PanelModel for HymnModel {
    type Params = HymnParams;
    type View = HymnView;
    type Results = SavedResults;
    type Tab = HymnTab;

    const KIND: PanelKind = PanelKind {
        id: "hymn",
        name: "HyMN subgraph GNN",
        description: "Subgraph GNNs that mark the most central nodes: colour a graph by subgraph \
                      centrality, then train MPNN, random, centrality, centrality+CSE and full-bag \
                      marking side by side, with the MPNN+CSE and random+CSE baselines, on \
                      substructure counts and compare accuracy against cost.",
        field: Field::MachineLearning,
        paper: Paper {
            title: "Balancing Efficiency and Expressiveness: Subgraph GNNs with Walk-Based Centrality",
            authors: "Southern, Eitan, Bar-Shalom, Bronstein, Maron, Frasca",
            venue: "ICML 2025",
            link: "https://arxiv.org/abs/2501.03113",
        },
    };

    benchtop_kit::tabs!(HymnTab {
        Graph => "Graph",
        Compare => "Compare",
    });

    const BENCHES: &'static [benchtop_kit::cli::BenchEntry] = bench::BENCHES;

    fn restore(
        results: &SavedResults,
        _sidecar: Option<&Sidecar>,
        params: &HymnParams,
    ) -> anyhow::Result<Self> {
        let mut model = Self::default();
        if let Some(r) = &results.graph {
            model
                .graph
                .task
                .set_result(graph_tab::key(params), r.clone());
        }
        if let Some(r) = &results.compare {
            model
                .compare
                .task
                .set_result(train_tab::key(params), r.clone());
        }
        Ok(model)
    }

    fn save(&self, results: &mut SavedResults, _sidecar: Option<&Sidecar>) -> anyhow::Result<()> {
        results.graph = self.graph.task.result().cloned();
        results.compare = self.compare.task.result().cloned();
        Ok(())
    }

    fn tab_ui(&mut self, tab: HymnTab, ui: &mut egui::Ui, cx: &mut Cx<'_, Self>) {
        match tab {
            HymnTab::Graph => self.graph.ui(ui, cx),
            HymnTab::Compare => self.compare.ui(ui, cx),
        }
    }

    fn react(&mut self, cx: &mut Cx<'_, Self>) {
        self.graph.react(cx);
    }

    fn validate(params: &HymnParams) -> Vec<ParamIssue> {
        let mut issues = Vec::new();
        match params.data.source {
            Source::Generated => issues.extend(ParamIssue::from_result(
                "data.set",
                params.data.set.validate(),
            )),
            Source::Molecules => issues.extend(ParamIssue::from_result(
                "data.molecules",
                params.data.molecules.validate(),
            )),
            Source::File => {}
        }
        issues.extend(ParamIssue::from_result(
            "experiment",
            params.experiment.validate(),
        ));
        issues
    }

    fn figures(&self, params: &HymnParams, _view: &HymnView) -> Vec<PanelFigure> {
        let recipe = Recipe::new(ENGINE, params, Some(params.seed));
        let mut out = Vec::new();
        if let Some(r) = self.graph.task.result() {
            out.push(recipe.figure("hymn-graph", figures::graph_figure(r)));
        }
        if let Some(r) = self.compare.task.result() {
            out.push(recipe.figure("hymn-comparison", figures::comparison_figure(r)));
            if let Some(f) = figures::perturbation_figure(r) {
                out.push(recipe.figure("hymn-perturbation", f));
            }
        }
        out
    }

    fn tables(&self, _params: &HymnParams, _view: &HymnView) -> Vec<DataTable> {
        let mut out = Vec::new();
        if let Some(r) = self.compare.task.result() {
            let rows = r
                .runs
                .iter()
                .map(|x| {
                    vec![
                        Method::ALL.iter().position(|m| *m == x.method).unwrap_or(0) as f64,
                        x.subgraphs,
                        x.test_mae,
                        x.seconds_per_epoch,
                    ]
                })
                .collect();
            out.push(DataTable::new(
                "hymn-comparison",
                &[
                    "method (0 MPNN, 1 random, 2 centrality, 3 centrality+CSE, 4 full bag, \
                     5 MPNN+CSE, 6 random+CSE)",
                    "subgraphs",
                    "test_mae",
                    "seconds_per_epoch",
                ],
                rows,
            ));
            if let Some(p) = &r.perturbation {
                let rows = p
                    .points
                    .iter()
                    .map(|q| {
                        vec![
                            q.graph as f64,
                            q.node as f64,
                            q.walks,
                            q.centrality,
                            q.change,
                        ]
                    })
                    .collect();
                out.push(DataTable::new(
                    "hymn-perturbation",
                    &[
                        "graph",
                        "node",
                        "walks",
                        "subgraph_centrality",
                        "output_change",
                    ],
                    rows,
                ));
            }
        }
        out
    }

    fn summary(&self, _params: &HymnParams) -> serde_json::Value {
        self.compare
            .task
            .result()
            .map_or(serde_json::Value::Null, summary_of)
    }

    fn sweep_outputs() -> Vec<SweepOutput> {
        let mut out: Vec<SweepOutput> = Method::ALL
            .iter()
            .map(|m| {
                SweepOutput::new(
                    match m {
                        Method::Mpnn => "mae_mpnn",
                        Method::Random => "mae_random",
                        Method::Centrality => "mae_centrality",
                        Method::CentralityCse => "mae_centrality_cse",
                        Method::FullBag => "mae_full_bag",
                        Method::MpnnCse => "mae_mpnn_cse",
                        Method::RandomCse => "mae_random_cse",
                    },
                    match m {
                        Method::Mpnn => "Test MAE, MPNN",
                        Method::Random => "Test MAE, random marks (largest T)",
                        Method::Centrality => "Test MAE, centrality marks (largest T)",
                        Method::CentralityCse => "Test MAE, centrality+CSE (largest T)",
                        Method::FullBag => "Test MAE, full bag",
                        Method::MpnnCse => "Test MAE, MPNN+CSE (no marks)",
                        Method::RandomCse => "Test MAE, random marks+CSE (largest T)",
                    },
                )
            })
            .collect();
        out.push(SweepOutput::new(
            "perturbation_vs_walks_spearman",
            "Spearman ρ, perturbation vs walks",
        ));
        out
    }

    fn evaluate(
        params: &HymnParams,
        _outputs: &[String],
        seed: u64,
        cx: &SweepCx<'_>,
        progress: &Progress,
        cancel: &CancelToken,
    ) -> Result<BTreeMap<String, f64>, ComputeError> {
        let set = data::graph_set(&params.data, seed, cx.project_dir)?;
        let r = run(&set, &params.experiment, seed, progress, cancel)?;
        Ok(sweep_values(&r))
    }
}
