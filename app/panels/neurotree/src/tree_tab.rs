//! The tree tab, the brain-tree explorer: the MST on 1 − |r| of a subject or a group mean in a
//! radial or force-directed layout, trunk levels coloured (levels can be collapsed), nodes
//! coloured by network with a legend, hover for ROI, network, score and level; the trunk search
//! (levels, α, S) re-runs live; per-network trunk membership by level and group.

use std::sync::Arc;

use benchtop_compute::ComputeError;
use benchtop_neurotree::Matrix;
use benchtop_neurotree::cohort::Group;
use benchtop_neurotree::dataset::Dataset;
use benchtop_neurotree::graph_tree::{SpanningTree, brain_tree};
use benchtop_neurotree::trunk::TrunkParams;

use super::data_tab::pick_ui;
use super::explore::{ExploredTree, Pick, explore, mean_pearson};
use super::figures::{level_color, membership_subplot, network_color, tree_subplot};
use super::layout::{Positions, fit_unit_disc, force_directed, radial};
use super::views::tree_view;
use super::{ENGINE, LoadedData, NeuroTreeModel, NeuroTreePanelParams, NeuroTreeView, TreeLayout};
use benchtop_kit::figure::{Figure, FigureViewState, show_figure};
use benchtop_kit::host::Cx;
use benchtop_kit::panel::{DataTable, PanelFigure, Recipe};
use benchtop_kit::widgets::controls_and_view;

/// Checks the trunk settings.
pub(super) fn validate_trunk(trunk: &TrunkParams) -> Result<(), ComputeError> {
    if trunk.levels == 0 {
        return Err(ComputeError::invalid("levels", "must be at least 1"));
    }
    if !(0.0..=1.0).contains(&trunk.alpha) {
        return Err(ComputeError::invalid("alpha", "must lie in [0, 1]"));
    }
    if trunk.max_path_order == 0 {
        return Err(ComputeError::invalid(
            "max_path_order",
            "must be at least 1",
        ));
    }
    Ok(())
}

/// A connectivity matrix and its brain tree (before trunks), with optional model node scores.
#[derive(Clone, Debug, PartialEq)]
pub struct TreeBase {
    /// The mean correlation it was built from.
    pub fc: Matrix,
    /// The MST on 1 − |r|.
    pub tree: SpanningTree,
    /// Model node scores (None: FC strength).
    pub scores: Option<Vec<f64>>,
}

impl TreeBase {
    /// The tree of `fc` with FC-strength scores.
    pub fn of_fc(fc: Matrix) -> Result<Self, ComputeError> {
        let tree = brain_tree(&fc)?;
        Ok(Self {
            fc,
            tree,
            scores: None,
        })
    }

    /// The tree with its trunks under `trunk`.
    pub fn explore(&self, trunk: TrunkParams) -> Result<ExploredTree, ComputeError> {
        explore(self.tree.clone(), &self.fc, self.scores.as_deref(), trunk)
    }
}

/// The groups a dataset has means for: all subjects, then controls and patients when both exist.
pub fn group_picks(dataset: &Dataset) -> Vec<Pick> {
    let mut picks = vec![Pick::AllSubjects];
    if dataset.count(Group::Control) > 0 && dataset.count(Group::Patient) > 0 {
        picks.extend([Pick::Group(Group::Control), Pick::Group(Group::Patient)]);
    }
    picks
}

/// The tree of `pick` computed from the data: the MST on 1 − r̄ of the mean signed correlation,
/// FC strength from |r̄| (as the engine's run builds its group trees).
pub fn tree_base(dataset: &Dataset, pick: Pick) -> Result<TreeBase, ComputeError> {
    TreeBase::of_fc(mean_pearson(dataset, &pick.members(dataset))?)
}

/// Group trees with their pick.
pub(super) type GroupBases = Vec<(Pick, TreeBase)>;

/// A group's tree with trunks and its membership counts `[level − 1][network]`.
pub(super) type GroupTrunks = (Pick, ExploredTree, Vec<Vec<usize>>);

/// Group trees with trunks: (pick, explored tree) for every group pick.
pub(super) fn group_trunks(
    dataset: &Dataset,
    bases: &[(Pick, TreeBase)],
    trunk: TrunkParams,
) -> Result<Vec<GroupTrunks>, ComputeError> {
    bases
        .iter()
        .map(|(pick, base)| {
            let explored = base.explore(trunk)?;
            let membership = explored.trunks.membership_by_network(
                &dataset.network_of_roi,
                dataset.network_names.len(),
                trunk.levels,
            )?;
            Ok((*pick, explored, membership))
        })
        .collect()
}

/// The group-mean tree bases (all subjects, then each group present) of `dataset`.
fn group_bases(dataset: &Dataset) -> Result<Arc<GroupBases>, ComputeError> {
    let groups: Vec<(Pick, TreeBase)> = group_picks(dataset)
        .into_iter()
        .map(|pick| Ok((pick, tree_base(dataset, pick)?)))
        .collect::<Result<_, ComputeError>>()?;
    Ok(Arc::new(groups))
}

/// What the explorer shows now.
struct Shown {
    key: (usize, usize, Pick, TrunkParams, TreeLayout),
    explored: ExploredTree,
    positions: Positions,
}

#[derive(Default)]
pub(super) struct TreeTab {
    /// Group trees from a trained result (model node scores), replacing the computed ones.
    trained: Option<Arc<GroupBases>>,
    /// Counts changes of `trained` (part of the cache key).
    trained_generation: usize,
    /// Group-mean trees of the current data (by data identity).
    groups: Option<(usize, Arc<GroupBases>)>,
    /// The tree of a picked subject.
    subject: Option<(usize, Pick, Arc<TreeBase>)>,
    shown: Option<Shown>,
    error: Option<String>,
    bars: FigureViewState,
}

fn data_id(data: &Arc<LoadedData>) -> usize {
    Arc::as_ptr(data) as usize
}

impl TreeTab {
    /// Uses the group trees of a trained result (or, with `None`, trees computed from the data).
    pub(super) fn set_trained(&mut self, trained: Option<GroupBases>) {
        self.trained = trained.map(Arc::new);
        self.trained_generation += 1;
        self.shown = None;
    }

    /// Forgets the trees computed from the previous subjects (new ones just arrived).
    pub(super) fn forget_data(&mut self) {
        self.groups = None;
        self.subject = None;
        self.shown = None;
    }

    /// The group-mean trees of `data`, computed on first use.
    fn groups(&mut self, data: &Arc<LoadedData>) -> Result<Arc<GroupBases>, ComputeError> {
        if let Some(trained) = &self.trained {
            return Ok(Arc::clone(trained));
        }
        let id = data_id(data);
        if let Some((seen, groups)) = &self.groups
            && *seen == id
        {
            return Ok(Arc::clone(groups));
        }
        let groups = group_bases(&data.dataset)?;
        self.groups = Some((id, Arc::clone(&groups)));
        Ok(groups)
    }

    fn base(&mut self, data: &Arc<LoadedData>, pick: Pick) -> Result<Arc<TreeBase>, ComputeError> {
        let groups = self.groups(data)?;
        if let Some((_, base)) = groups.iter().find(|(p, _)| *p == pick) {
            return Ok(Arc::new(base.clone()));
        }
        let id = data_id(data);
        if let Some((seen, p, base)) = &self.subject
            && *seen == id
            && *p == pick
        {
            return Ok(Arc::clone(base));
        }
        let base = Arc::new(tree_base(&data.dataset, pick)?);
        self.subject = Some((id, pick, Arc::clone(&base)));
        Ok(base)
    }

    fn update(
        &mut self,
        data: &Arc<LoadedData>,
        trunk: TrunkParams,
        view: &NeuroTreeView,
    ) -> Result<(), ComputeError> {
        let key = (
            data_id(data),
            self.trained_generation,
            view.pick,
            trunk,
            view.layout,
        );
        if self.shown.as_ref().is_some_and(|s| s.key == key) {
            return Ok(());
        }
        validate_trunk(&trunk)?;
        let base = self.base(data, view.pick)?;
        let explored = base.explore(trunk)?;
        let edges: Vec<(usize, usize)> = explored.tree.edges.iter().map(|e| (e.a, e.b)).collect();
        let n = explored.tree.n_nodes;
        let positions = match view.layout {
            TreeLayout::Radial => fit_unit_disc(radial(n, &edges, explored.root)),
            TreeLayout::ForceDirected => force_directed(n, &edges, explored.root),
        };
        self.shown = Some(Shown {
            key,
            explored,
            positions,
        });
        Ok(())
    }

    pub(super) fn ui(
        &mut self,
        ui: &mut egui::Ui,
        cx: &mut Cx<'_, NeuroTreeModel>,
        data: Option<&Arc<LoadedData>>,
    ) {
        let Some(data) = data else {
            ui.label("Generate or load subjects in the Data tab first.");
            return;
        };
        controls_and_view(
            ui,
            "neurotree tree controls",
            300.0,
            &mut (self, cx),
            |(tab, cx), ui| tab.controls_ui(ui, cx, data),
            |(tab, cx), ui| tab.view_ui(ui, cx.params, cx.view, data),
        );
    }

    fn view_ui(
        &mut self,
        ui: &mut egui::Ui,
        params: &NeuroTreePanelParams,
        view: &NeuroTreeView,
        data: &Arc<LoadedData>,
    ) {
        self.error = self
            .update(data, params.run.trunk, view)
            .err()
            .map(|e| e.to_string());
        if let Some(error) = &self.error {
            ui.colored_label(ui.visuals().error_fg_color, error);
        }
        let Some(shown) = &self.shown else {
            return;
        };
        ui.strong(format!(
            "Brain tree: {} ({} trunks over {} levels)",
            view.pick.label(&data.dataset),
            shown.explored.trunks.trunks.len(),
            params.run.trunk.levels
        ));
        ui.label(if shown.explored.scores == shown.explored.strength {
            "Node scores: FC strength (computed from the data)."
        } else {
            "Node scores: the trained AGE-GCN's, averaged over the group."
        });
        let height = ui.available_height();
        ui.horizontal_top(|ui| {
            ui.set_height(height * 0.62);
            tree_view(
                ui,
                &shown.explored,
                &shown.positions,
                &data.dataset,
                &view.hidden_levels,
            );
            ui.vertical(|ui| legend_ui(ui, &data.dataset, params.run.trunk.levels));
        });
        match self.membership_figure(&data.dataset, params.run.trunk) {
            Ok(figure) => show_figure(ui, &figure, &mut self.bars),
            Err(error) => {
                ui.colored_label(ui.visuals().error_fg_color, error.to_string());
            }
        }
    }

    fn controls_ui(
        &mut self,
        ui: &mut egui::Ui,
        cx: &mut Cx<'_, NeuroTreeModel>,
        data: &Arc<LoadedData>,
    ) {
        let view = &mut *cx.view;
        ui.strong("Tree");
        pick_ui(ui, &data.dataset, &mut view.pick);
        ui.horizontal(|ui| {
            ui.label("Layout");
            ui.selectable_value(&mut view.layout, TreeLayout::Radial, "Radial");
            ui.selectable_value(
                &mut view.layout,
                TreeLayout::ForceDirected,
                "Force-directed",
            );
        });
        ui.strong("Trunks");
        cx.params(
            ui,
            &["run.trunk.levels", "trunk.alpha", "trunk.max_path_order"],
        );
        if let Err(error) = validate_trunk(&cx.params.run.trunk) {
            ui.colored_label(ui.visuals().error_fg_color, format!("trunk.{error}"));
        }
        let view = &mut *cx.view;
        ui.label("Show trunk levels:");
        for level in 1..=cx.params.run.trunk.levels {
            let mut shown = !view.hidden_levels.contains(&level);
            if ui.checkbox(&mut shown, format!("Level {level}")).changed() {
                view.hidden_levels.retain(|&l| l != level);
                if !shown {
                    view.hidden_levels.push(level);
                    view.hidden_levels.sort_unstable();
                }
            }
        }
        ui.checkbox(
            &mut view.trunk_labels,
            "Name trunk ROIs in exported figures",
        );
        if let Some(shown) = &self.shown {
            ui.separator();
            for trunk in &shown.explored.trunks.trunks {
                let names: Vec<String> = trunk
                    .nodes
                    .iter()
                    .map(|&i| data.dataset.roi_names.get(i).cloned().unwrap_or_default())
                    .collect();
                ui.label(format!(
                    "Level {} (score {:.3}): {}",
                    trunk.level,
                    trunk.score,
                    names.join(" – ")
                ));
            }
        }
    }

    fn membership_figure(
        &mut self,
        dataset: &Dataset,
        trunk: TrunkParams,
    ) -> Result<Figure, ComputeError> {
        let groups = match (&self.trained, &self.groups) {
            (Some(trained), _) => Arc::clone(trained),
            (None, Some((_, g))) => Arc::clone(g),
            (None, None) => return Err(ComputeError::invalid("groups", "no group trees yet")),
        };
        membership_figure(dataset, &groups, trunk)
    }

    /// The group trees of `data` (cached ones when current, otherwise computed).
    fn bases(&self, data: &LoadedData) -> Result<Arc<GroupBases>, ComputeError> {
        if let Some(trained) = &self.trained {
            return Ok(Arc::clone(trained));
        }
        if let Some((id, groups)) = &self.groups
            && *id == std::ptr::from_ref(data) as usize
        {
            return Ok(Arc::clone(groups));
        }
        group_bases(&data.dataset)
    }

    /// The picked tree (current or computed now) for export.
    fn picked(
        &self,
        data: &LoadedData,
        trunk: TrunkParams,
        view: &NeuroTreeView,
    ) -> Result<(ExploredTree, Positions), ComputeError> {
        if let Some(shown) = &self.shown
            && shown.key
                == (
                    std::ptr::from_ref(data) as usize,
                    self.trained_generation,
                    view.pick,
                    trunk,
                    view.layout,
                )
        {
            return Ok((shown.explored.clone(), shown.positions.clone()));
        }
        let bases = self.bases(data)?;
        let explored = match bases.iter().find(|(p, _)| *p == view.pick) {
            Some((_, base)) => base.explore(trunk)?,
            None => tree_base(&data.dataset, view.pick)?.explore(trunk)?,
        };
        let edges: Vec<(usize, usize)> = explored.tree.edges.iter().map(|e| (e.a, e.b)).collect();
        let n = explored.tree.n_nodes;
        let positions = match view.layout {
            TreeLayout::Radial => fit_unit_disc(radial(n, &edges, explored.root)),
            TreeLayout::ForceDirected => force_directed(n, &edges, explored.root),
        };
        Ok((explored, positions))
    }

    pub(super) fn figures(
        &self,
        params: &NeuroTreePanelParams,
        view: &NeuroTreeView,
        data: &LoadedData,
    ) -> Vec<PanelFigure> {
        let mut figures = Vec::new();
        let seed =
            (params.data.source == super::DataSource::Synthetic).then_some(params.data.cohort.seed);
        let recipe = Recipe::new(ENGINE, params, seed);
        if let Ok((explored, positions)) = self.picked(data, params.run.trunk, view) {
            let title = format!("Brain tree: {}", view.pick.label(&data.dataset));
            figures.push(recipe.figure(
                "neurotree-tree",
                Figure::new(title).size_in(8.0, 8.0).subplot(tree_subplot(
                    "",
                    &explored,
                    &positions,
                    &data.dataset,
                    &view.hidden_levels,
                    view.trunk_labels,
                )),
            ));
        }
        if let Ok(bases) = self.bases(data)
            && let Ok(figure) = membership_figure(&data.dataset, &bases, params.run.trunk)
        {
            figures.push(recipe.figure("neurotree-trunk-membership", figure));
        }
        figures
    }

    /// The picked tree's edges and trunks under `trunk`.
    pub(super) fn tables(
        &self,
        trunk: TrunkParams,
        view: &NeuroTreeView,
        data: &LoadedData,
    ) -> Vec<DataTable> {
        let Ok((explored, _)) = self.picked(data, trunk, view) else {
            return Vec::new();
        };
        let edges = DataTable::new(
            "neurotree-tree-edges",
            &["roi_a", "roi_b", "distance", "trunk_level"],
            explored
                .tree
                .edges
                .iter()
                .zip(&explored.edge_level)
                .map(|(e, l)| {
                    vec![
                        e.a as f64,
                        e.b as f64,
                        e.weight,
                        l.map_or(0.0, |l| l as f64),
                    ]
                })
                .collect(),
        );
        let trunks = DataTable::new(
            "neurotree-trunks",
            &["level", "position", "roi", "network", "score"],
            explored
                .trunks
                .trunks
                .iter()
                .flat_map(|t| {
                    t.nodes.iter().enumerate().map(|(k, &node)| {
                        vec![
                            t.level as f64,
                            k as f64,
                            node as f64,
                            data.dataset.network_of_roi.get(node).copied().unwrap_or(0) as f64,
                            explored.scores.get(node).copied().unwrap_or(f64::NAN),
                        ]
                    })
                })
                .collect(),
        );
        vec![edges, trunks]
    }

    /// `trunks` (per group: level → ROI names) and `trunk_membership` (per group: level →
    /// network → count) for summary.json.
    pub(super) fn summary(
        &self,
        params: &NeuroTreePanelParams,
        data: &LoadedData,
    ) -> serde_json::Map<String, serde_json::Value> {
        let mut out = serde_json::Map::new();
        let Ok(bases) = self.bases(data) else {
            return out;
        };
        let Ok(groups) = group_trunks(&data.dataset, &bases, params.run.trunk) else {
            return out;
        };
        let mut trunks = serde_json::Map::new();
        let mut membership = serde_json::Map::new();
        for (pick, explored, counts) in &groups {
            let key = group_key(*pick);
            let mut levels = serde_json::Map::new();
            for level in 1..=params.run.trunk.levels {
                let names: Vec<String> = explored
                    .trunks
                    .level_nodes(level)
                    .into_iter()
                    .map(|i| data.dataset.roi_names.get(i).cloned().unwrap_or_default())
                    .collect();
                levels.insert(level.to_string(), names.into());
            }
            trunks.insert(key.clone(), levels.into());
            let mut by_level = serde_json::Map::new();
            for (l, row) in counts.iter().enumerate() {
                let per_network: serde_json::Map<String, serde_json::Value> = data
                    .dataset
                    .network_names
                    .iter()
                    .zip(row)
                    .map(|(name, &c)| (name.clone(), c.into()))
                    .collect();
                by_level.insert((l + 1).to_string(), per_network.into());
            }
            membership.insert(key, by_level.into());
        }
        out.insert("trunks".into(), trunks.into());
        out.insert("trunk_membership".into(), membership.into());
        out
    }
}

/// `all`, `control` or `patient`.
pub(super) fn group_key(pick: Pick) -> String {
    match pick {
        Pick::AllSubjects => "all".into(),
        Pick::Group(Group::Control) => "control".into(),
        Pick::Group(Group::Patient) => "patient".into(),
        Pick::Subject(i) => format!("subject {i}"),
    }
}

/// Trunk membership bars, one subplot per group.
fn membership_figure(
    dataset: &Dataset,
    bases: &[(Pick, TreeBase)],
    trunk: TrunkParams,
) -> Result<Figure, ComputeError> {
    let groups = group_trunks(dataset, bases, trunk)?;
    let mut figure = Figure::new("Trunk nodes per network, by level")
        .grid(1, groups.len().max(1))
        .size_in(12.0, 4.0);
    for (pick, _, counts) in &groups {
        figure = figure.subplot(membership_subplot(
            &pick.label(dataset),
            counts,
            &dataset.network_names,
        ));
    }
    Ok(figure)
}

/// Networks and levels with their colours.
fn legend_ui(ui: &mut egui::Ui, dataset: &Dataset, levels: usize) {
    ui.strong("Networks");
    for (k, name) in dataset.network_names.iter().enumerate() {
        let c = network_color(k);
        ui.colored_label(egui::Color32::from_rgb(c.r, c.g, c.b), format!("● {name}"));
    }
    ui.strong("Trunk levels");
    for level in 1..=levels {
        let c = level_color(level);
        ui.colored_label(
            egui::Color32::from_rgb(c.r, c.g, c.b),
            format!("━ level {level}"),
        );
    }
    ui.label("Hover a node for its ROI.");
}
