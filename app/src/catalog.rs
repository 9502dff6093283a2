//! The catalog: every panel kind the workbench offers, registered in one list.
//!
//! Registering a panel is one line in [`catalog!`]'s invocation below (plus the panel crate in
//! `app/Cargo.toml`). The list generates the project file's tagged union of panel states
//! ([`PanelState`]: the variant name is the tag in `.ron` files, so existing files keep
//! loading and errors keep their line and key), the catalog order, and the conversions between
//! open panels and saved states.

use benchtop_kit::cli::{BenchEntry, CommandEntry};
use benchtop_kit::panel::{Panel, PanelKind, PanelType};
use benchtop_kit::project::Sidecar;
use serde::{Deserialize, Serialize};

/// A project document of this workbench's panels.
pub type ProjectDoc = benchtop_kit::project::ProjectDoc<PanelState>;

/// One open panel of a project document.
pub type PanelEntry = benchtop_kit::project::PanelEntry<PanelState>;

/// Generates [`PanelState`], [`catalog`], [`benches`], [`commands`], [`create`], [`restore`]
/// and [`save`] from one list of `Variant => PanelType` lines.
macro_rules! catalog {
    ($($(#[$doc:meta])* $variant:ident => $panel:ty,)*) => {
        /// The persisted state of one panel, tagged by its kind (the `state:` of a project
        /// file's panel entry).
        #[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
        #[allow(
            clippy::large_enum_variant,
            reason = "one per panel, held only while a project is read or written"
        )]
        pub enum PanelState {
            $($(#[$doc])* $variant(<$panel as PanelType>::State),)*
        }

        /// A new panel of kind `kind` with default parameters (`None` for a kind that is not
        /// in the catalog).
        pub fn create(kind: &PanelKind) -> Option<Box<dyn Panel>> {
            $(
                if kind.id == <$panel as PanelType>::KIND.id {
                    return Some(Box::new(<$panel as PanelType>::create()));
                }
            )*
            None
        }

        /// Every panel kind's `benchtop bench` entries, in catalog order.
        pub fn benches() -> Vec<&'static BenchEntry> {
            let mut entries = Vec::new();
            $(entries.extend(<$panel as PanelType>::BENCHES);)*
            entries
        }

        /// Every panel kind's own subcommands (`benchtop NAME …`), in catalog order.
        pub fn commands() -> Vec<&'static CommandEntry> {
            let mut entries = Vec::new();
            $(entries.extend(<$panel as PanelType>::COMMANDS);)*
            entries
        }

        /// Every panel kind, in catalog order.
        pub fn catalog() -> &'static [PanelKind] {
            const KINDS: &[PanelKind] = &[$(<$panel as PanelType>::KIND,)*];
            KINDS
        }

        /// Rebuilds a panel from its saved state; arrays are read from `sidecar` when given.
        pub fn restore(state: PanelState, sidecar: Option<&Sidecar>) -> anyhow::Result<Box<dyn Panel>> {
            match state {
                $(PanelState::$variant(state) => {
                    Ok(Box::new(<$panel as PanelType>::restore(state, sidecar)?))
                })*
            }
        }

        /// The saved state of `panel`; its arrays go to `sidecar` when given.
        pub fn save(panel: &dyn Panel, sidecar: Option<&Sidecar>) -> anyhow::Result<PanelState> {
            let state = panel.save(sidecar)?;
            $(
                let state = match state.downcast::<<$panel as PanelType>::State>() {
                    Ok(state) => return Ok(PanelState::$variant(*state)),
                    Err(other) => other,
                };
            )*
            drop(state);
            anyhow::bail!("{}: this panel kind is not in the catalog", panel.kind().name)
        }
    };
}

catalog! {
    /// The Ising duality explorer.
    Ising => benchtop_panel_ising::IsingPanel,
    /// Weather spectra and the AMSE loss.
    Spectra => benchtop_panel_spectra::SpectraPanel,
    /// FINDR flow fields from spike trains.
    Findr => benchtop_panel_findr::FindrPanel,
    /// NeuroTree brain trees and trunks from fMRI.
    NeuroTree => benchtop_panel_neurotree::NeuroTreePanel,
    /// MolStitch molecule stitching and offline optimisation.
    MolStitch => benchtop_panel_molstitch::MolStitchPanel,
    /// Robust spatio-temporal GP.
    Rcgp => benchtop_panel_rcgp::RcgpPanel,
    /// Function vs representation.
    Linnet => benchtop_panel_linnet::LinnetPanel,
    /// Tensor-Var data assimilation.
    Assimilation => benchtop_panel_assimilation::AssimilationPanel,
    /// Reflection-Bench.
    Reflection => benchtop_panel_reflection::ReflectionPanel,
    /// HyMN subgraph GNN.
    Hymn => benchtop_panel_hymn::HymnPanel,
    /// StealthInk watermark.
    Watermark => benchtop_panel_watermark::WatermarkPanel,
    /// PIWSL interatomic potentials.
    Mlip => benchtop_panel_mlip::MlipPanel,
    /// ML vs DL for quantum systems.
    Quantum => benchtop_panel_quantum::QuantumPanel,
    /// Weak-features learning.
    Weakfeatures => benchtop_panel_weakfeatures::WeakfeaturesPanel,
    // New panels are registered above this line.
}

/// The kind with identifier `id`.
pub fn kind_by_id(id: &str) -> Option<&'static PanelKind> {
    catalog().iter().find(|kind| kind.id == id)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn catalog_ids_are_unique_and_papers_cited() {
        let kinds = catalog();
        for (i, kind) in kinds.iter().enumerate() {
            assert!(kinds[i + 1..].iter().all(|other| other.id != kind.id));
            assert!(kind.paper.citation().contains("ICML 2025"));
            assert_eq!(kind_by_id(kind.id).map(|k| k.name), Some(kind.name));
        }
    }

    /// The sections every panel's page in docs/panels has, in order.
    pub const PAGE_SECTIONS: [&str; 7] = [
        "## Tabs",
        "## Inputs and formats",
        "## summary.json keys",
        "## Example projects",
        "## Benchmark",
        "## Claims of the paper",
        "## Differences from the paper",
    ];

    #[test]
    fn every_panel_kind_has_its_docs_page_with_every_section() {
        let pages = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/panels");
        for kind in catalog() {
            let path = pages.join(format!("{}.md", kind.id));
            let text = std::fs::read_to_string(&path)
                .unwrap_or_else(|e| panic!("{}: the docs page is missing ({e})", path.display()));
            assert!(text.starts_with("# "), "{}: no title", path.display());
            let mut at = 0;
            for section in PAGE_SECTIONS {
                let found = text[at..]
                    .find(&format!("\n{section}\n"))
                    .unwrap_or_else(|| panic!("{}: no `{section}` (in order)", path.display()));
                at += found + 1;
            }
        }
        for bench in benches() {
            let named = catalog().iter().any(|kind| {
                std::fs::read_to_string(pages.join(format!("{}.md", kind.id)))
                    .is_ok_and(|text| text.contains(&format!("benchtop bench {}", bench.name)))
            });
            assert!(
                named,
                "no panel page documents `benchtop bench {}`",
                bench.name
            );
        }
    }

    #[test]
    fn command_line_entries_have_unique_names() {
        let benches: Vec<&str> = benches().iter().map(|b| b.name).collect();
        let commands: Vec<&str> = commands().iter().map(|c| c.name).collect();
        for (i, name) in benches.iter().enumerate() {
            assert!(!benches[i + 1..].contains(name), "bench {name} twice");
        }
        for (i, name) in commands.iter().enumerate() {
            assert!(!commands[i + 1..].contains(name), "command {name} twice");
        }
        assert!(benches.len() >= catalog().len(), "{benches:?}");
    }

    #[test]
    fn every_kind_saves_into_its_own_variant_and_restores() {
        for kind in catalog() {
            let panel = create(kind).expect("every catalog kind is created");
            let state = save(panel.as_ref(), None).expect("a new panel saves");
            let restored = restore(state.clone(), None).expect("and restores");
            assert_eq!(restored.kind().id, kind.id);
            assert_eq!(save(restored.as_ref(), None).expect("saves again"), state);
        }
    }
}
