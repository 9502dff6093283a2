//! Whether the open project has unsaved changes.
//!
//! A change is something the user did: a parameter edited, a computation they started that
//! delivered a result (each panel answers for itself, see [`Panel::has_unsaved_changes`]), a
//! panel opened or closed, a sweep defined or run, the tiles rearranged. What the user only
//! looked at is no change: the tab shown (in the dock or inside a panel), a pane switched
//! between its panel and its sweeps, results a panel computes by itself from the saved
//! parameters, and the sweeps a project computes when it opens. These are still saved with the
//! project when the user saves. Results that took long to compute are the exception: the
//! window counts them as unsaved, whoever started them (see [`LONG_COMPUTE`]).
//!
//! [`LONG_COMPUTE`]: benchtop_kit::task::LONG_COMPUTE
//!
//! [`Panel::has_unsaved_changes`]: benchtop_kit::panel::Panel::has_unsaved_changes

use std::collections::BTreeMap;

use benchtop_kit::project::{PaneId, Preset};
use benchtop_kit::sweep::SweepDoc;
use egui_tiles::{Container, Tile, Tree};

use crate::session::Session;

/// The project's shape as last saved or opened: which panels, sweeps, presets and tiles.
pub(super) struct SavedShape {
    panels: Vec<(PaneId, &'static str)>,
    sweeps: Vec<SweepDoc>,
    presets: BTreeMap<String, Preset>,
    /// The layout as first drawn after the mark (drawing tidies a layout read from a file,
    /// e.g. gives every pane a tab); `None` until then.
    layout: Option<Tree<PaneId>>,
}

impl SavedShape {
    /// Takes `session` as saved: its shape, and each panel's state.
    pub(super) fn mark(session: &mut Session) -> Self {
        for panel in session.panels.values_mut() {
            panel.mark_saved();
        }
        Self {
            panels: panel_kinds(session).collect(),
            sweeps: session.sweeps.iter().map(|run| run.doc.clone()).collect(),
            presets: session.presets.clone(),
            layout: None,
        }
    }

    /// Takes the layout as drawn for the first time since the mark as the saved one.
    pub(super) fn drawn(&mut self, session: &Session) {
        if self.layout.is_none() {
            self.layout = Some(session.layout.clone());
        }
    }

    /// Takes the results of sweep `name` of pane `pane` as saved (points the project computed
    /// by itself), when it was saved with the same definition.
    pub(super) fn absorb_sweep_results(&mut self, session: &Session, pane: PaneId, name: &str) {
        let is_it = |doc: &SweepDoc| doc.pane == pane && doc.name == name;
        let Some(now) = session.sweeps.iter().map(|run| &run.doc).find(|d| is_it(d)) else {
            return;
        };
        if let Some(saved) = self.sweeps.iter_mut().find(|d| is_it(d))
            && same_definition(saved, now)
        {
            saved.results.clone_from(&now.results);
            saved.fingerprint.clone_from(&now.fingerprint);
        }
    }

    /// Whether `session` has changes the user made since [`SavedShape::mark`].
    pub(super) fn has_changes(&self, session: &Session) -> bool {
        !panel_kinds(session).eq(self.panels.iter().copied())
            || !session.sweeps.iter().map(|run| &run.doc).eq(&self.sweeps)
            || session.presets != self.presets
            || self
                .layout
                .as_ref()
                .is_some_and(|saved| !same_arrangement(&session.layout, saved))
            || session.panels.values().any(|p| p.has_unsaved_changes())
    }
}

fn panel_kinds(session: &Session) -> impl Iterator<Item = (PaneId, &'static str)> + '_ {
    session.panels.iter().map(|(id, p)| (*id, p.kind().id))
}

/// Whether two sweeps vary, repeat, record and draw the same, whatever their results.
fn same_definition(a: &SweepDoc, b: &SweepDoc) -> bool {
    a.name == b.name
        && a.pane == b.pane
        && a.axes == b.axes
        && a.repeats == b.repeats
        && a.base_seed == b.base_seed
        && a.outputs == b.outputs
        && a.view == b.view
}

/// Whether two layouts arrange the same tiles the same way, whichever tab each shows.
pub(super) fn same_arrangement(a: &Tree<PaneId>, b: &Tree<PaneId>) -> bool {
    a.root == b.root
        && a.tiles.len() == b.tiles.len()
        && a.tiles.iter().all(|(id, tile)| {
            a.tiles.is_visible(*id) == b.tiles.is_visible(*id)
                && b.tiles.get(*id).is_some_and(|other| same_tile(tile, other))
        })
}

fn same_tile(a: &Tile<PaneId>, b: &Tile<PaneId>) -> bool {
    match (a, b) {
        (Tile::Container(Container::Tabs(a)), Tile::Container(Container::Tabs(b))) => {
            a.children == b.children
        }
        _ => a == b,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_tab_shown_is_no_rearrangement_but_a_moved_tab_is() {
        let tree = Tree::new_tabs(egui::Id::unique("t"), vec![PaneId(1), PaneId(2)]);
        let mut switched = tree.clone();
        switched.make_active(|_, t| matches!(t, Tile::Pane(PaneId(2))));
        assert!(switched != tree, "the tab shown is part of the layout");
        assert!(same_arrangement(&switched, &tree));
        let mut moved = tree.clone();
        for (_, tile) in moved.tiles.iter_mut() {
            if let Tile::Container(Container::Tabs(tabs)) = tile {
                tabs.children.reverse();
            }
        }
        assert!(!same_arrangement(&moved, &tree));
    }
}
