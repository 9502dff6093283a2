//! Every user command in one enum: the menus, keyboard shortcuts and command palette all come
//! from here, so a command is never reachable one way and not another.

use egui::{Key, KeyboardShortcut, Modifiers};

/// A command the user can give.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Command {
    /// Start an empty project.
    NewProject,
    /// Open a project file.
    OpenProject,
    /// Save the project to its file (asks for a name the first time).
    Save,
    /// Save the project under a new name.
    SaveAs,
    /// Export every figure of the project.
    ExportFigures,
    /// Undo the last parameter edit of the focused panel.
    Undo,
    /// Redo the last undone edit of the focused panel.
    Redo,
    /// Switch between dark and light themes.
    ToggleTheme,
    /// Show or hide the panel catalog.
    ToggleCatalog,
    /// Open the command palette.
    CommandPalette,
    /// Close the focused panel.
    ClosePanel,
    /// Open the tour project.
    OpenTour,
    /// Show the about box.
    About,
    /// Quit Benchtop.
    Quit,
}

/// Where a command appears in the menu bar.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Menu {
    /// The File menu.
    File,
    /// The Edit menu.
    Edit,
    /// The View menu.
    View,
    /// The Help menu.
    Help,
}

impl Command {
    /// Every command, in menu order.
    pub const ALL: [Self; 14] = [
        Self::NewProject,
        Self::OpenProject,
        Self::Save,
        Self::SaveAs,
        Self::ExportFigures,
        Self::ClosePanel,
        Self::Quit,
        Self::Undo,
        Self::Redo,
        Self::ToggleTheme,
        Self::ToggleCatalog,
        Self::CommandPalette,
        Self::OpenTour,
        Self::About,
    ];

    /// The menu text (sentence case; `…` when it opens a dialog).
    pub fn label(self) -> &'static str {
        match self {
            Self::NewProject => "New project",
            Self::OpenProject => "Open…",
            Self::Save => "Save",
            Self::SaveAs => "Save as…",
            Self::ExportFigures => "Export figures…",
            Self::Undo => "Undo",
            Self::Redo => "Redo",
            Self::ToggleTheme => "Dark or light theme",
            Self::ToggleCatalog => "Panel catalog",
            Self::CommandPalette => "Command palette…",
            Self::ClosePanel => "Close panel",
            Self::OpenTour => "Open the tour",
            Self::About => "About Benchtop",
            Self::Quit => "Quit",
        }
    }

    /// The menu the command lives in.
    pub fn menu(self) -> Menu {
        match self {
            Self::NewProject
            | Self::OpenProject
            | Self::Save
            | Self::SaveAs
            | Self::ExportFigures
            | Self::ClosePanel
            | Self::Quit => Menu::File,
            Self::Undo | Self::Redo => Menu::Edit,
            Self::ToggleTheme | Self::ToggleCatalog | Self::CommandPalette => Menu::View,
            Self::OpenTour | Self::About => Menu::Help,
        }
    }

    /// The keyboard shortcut, if any (Ctrl on Linux and Windows, Cmd on macOS).
    pub fn shortcut(self) -> Option<KeyboardShortcut> {
        let command = Modifiers::COMMAND;
        let command_shift = Modifiers::COMMAND.plus(Modifiers::SHIFT);
        let (modifiers, key) = match self {
            Self::NewProject => (command, Key::N),
            Self::OpenProject => (command, Key::O),
            Self::Save => (command, Key::S),
            Self::SaveAs => (command_shift, Key::S),
            Self::ExportFigures => (command, Key::E),
            Self::Undo => (command, Key::Z),
            Self::Redo => (command_shift, Key::Z),
            Self::ToggleCatalog => (command, Key::B),
            Self::CommandPalette => (command_shift, Key::P),
            Self::ClosePanel => (command, Key::W),
            Self::Quit => (command, Key::Q),
            Self::ToggleTheme | Self::OpenTour | Self::About => return None,
        };
        Some(KeyboardShortcut::new(modifiers, key))
    }

    /// Every shortcut of the command: [`Command::shortcut`] and the platform's other
    /// conventions (Redo is also Ctrl+Y).
    pub fn shortcuts(self) -> Vec<KeyboardShortcut> {
        let mut all: Vec<KeyboardShortcut> = self.shortcut().into_iter().collect();
        if self == Self::Redo {
            all.push(KeyboardShortcut::new(Modifiers::COMMAND, Key::Y));
        }
        all
    }

    /// Every (shortcut, command), those with more modifiers first: egui matches modifiers
    /// "logically" (extra Shift allowed), so Ctrl+Shift+S must be tried before Ctrl+S or it
    /// would save instead of opening Save as.
    pub fn shortcut_table() -> Vec<(KeyboardShortcut, Self)> {
        let mut table: Vec<(KeyboardShortcut, Self)> = Self::ALL
            .iter()
            .flat_map(|&command| command.shortcuts().into_iter().map(move |s| (s, command)))
            .collect();
        let weight = |m: Modifiers| u8::from(m.shift) + u8::from(m.alt);
        table.sort_by_key(|(shortcut, _)| std::cmp::Reverse(weight(shortcut.modifiers)));
        table
    }

    /// Whether `query` (typed in the palette) matches this command: every word of the query
    /// appears in the label, case-insensitively.
    pub fn matches(self, query: &str) -> bool {
        let label = self.label().to_lowercase();
        query
            .split_whitespace()
            .all(|word| label.contains(&word.to_lowercase()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shifted_shortcuts_are_tried_first_and_redo_has_ctrl_y() {
        let table = Command::shortcut_table();
        let position = |command: Command, shift: bool| {
            table
                .iter()
                .position(|(s, c)| *c == command && s.modifiers.shift == shift)
                .expect("listed")
        };
        assert!(position(Command::SaveAs, true) < position(Command::Save, false));
        assert!(position(Command::Redo, true) < position(Command::Undo, false));
        assert!(
            Command::Redo
                .shortcuts()
                .contains(&KeyboardShortcut::new(Modifiers::COMMAND, Key::Y))
        );
    }

    #[test]
    fn shortcuts_are_unique() {
        let shortcuts: Vec<_> = Command::ALL.iter().flat_map(|c| c.shortcuts()).collect();
        for (i, a) in shortcuts.iter().enumerate() {
            assert!(!shortcuts[i + 1..].contains(a), "duplicate shortcut {a:?}");
        }
    }

    #[test]
    fn palette_matching() {
        assert!(Command::ExportFigures.matches("exp fig"));
        assert!(Command::SaveAs.matches("SAVE as"));
        assert!(!Command::Save.matches("export"));
        assert!(Command::ALL.iter().all(|c| c.matches("")));
    }
}
