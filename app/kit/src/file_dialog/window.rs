//! Benchtop's own file dialog, drawn in the window: a folder listing, the folder's path (typed
//! or reached by clicking), a file name, files filtered by extension, and a new folder for
//! exports. Every error (an unreadable folder, a folder that could not be made, a missing file)
//! is shown in the dialog.

use std::path::{Path, PathBuf};

use super::{Kind, Request};

/// One entry of the listed folder.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Entry {
    name: String,
    is_dir: bool,
}

/// What the dialog gave this frame.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// Still open.
    Open,
    /// The user chose this path.
    Chosen(PathBuf),
    /// The user closed it without choosing.
    Cancelled,
}

/// The in-window dialog's state, kept from frame to frame by whoever opened it.
#[derive(Clone, Debug)]
pub struct InWindowDialog {
    request: Request,
    /// Why the system's dialog is not used, shown at the top.
    note: Option<String>,
    folder: PathBuf,
    folder_text: String,
    entries: Result<Vec<Entry>, String>,
    file_name: String,
    new_folder: String,
    show_all: bool,
    error: Option<String>,
    /// A save that would replace this file, waiting for a second click.
    replace: Option<PathBuf>,
}

impl InWindowDialog {
    /// A dialog for `request`, listing its folder (else the working folder); `note` says why
    /// it is shown instead of the system's.
    pub fn new(request: Request, note: Option<String>) -> Self {
        let folder = request
            .folder
            .clone()
            .filter(|f| f.is_dir())
            .or_else(|| std::env::current_dir().ok())
            .unwrap_or_else(|| PathBuf::from("/"));
        let file_name = request.file_name.clone();
        let mut dialog = Self {
            request,
            note,
            folder: PathBuf::new(),
            folder_text: String::new(),
            entries: Ok(Vec::new()),
            file_name,
            new_folder: String::new(),
            show_all: false,
            error: None,
            replace: None,
        };
        dialog.go_to(folder);
        dialog
    }

    /// The folder listed now.
    pub fn folder(&self) -> &Path {
        &self.folder
    }

    /// The request it answers.
    pub fn request(&self) -> &Request {
        &self.request
    }

    /// Lists `folder` (made absolute, `..` and links resolved), or says why it cannot.
    fn go_to(&mut self, folder: PathBuf) {
        let folder = std::fs::canonicalize(&folder)
            .or_else(|_| std::path::absolute(&folder))
            .unwrap_or(folder);
        self.entries = list(&folder, self.show_all);
        self.folder_text = folder.display().to_string();
        self.folder = folder;
        self.replace = None;
        self.error = None;
    }

    fn refresh(&mut self) {
        self.entries = list(&self.folder, self.show_all);
    }

    /// Whether the listing shows a file of this name.
    fn matches_filter(&self, name: &str) -> bool {
        self.show_all
            || self.request.filter.as_ref().is_none_or(|filter| {
                Path::new(name)
                    .extension()
                    .and_then(|e| e.to_str())
                    .is_some_and(|e| filter.extensions.iter().any(|x| x.eq_ignore_ascii_case(e)))
            })
    }

    /// Draws the dialog; call every frame while it is open.
    pub fn show(&mut self, ctx: &egui::Context) -> Outcome {
        let mut outcome = Outcome::Open;
        let modal = egui::Modal::new(egui::Id::unique((
            "benchtop_file_dialog",
            &self.request.title,
        )))
        .show(ctx, |ui| {
            ui.set_width(520.0);
            outcome = self.contents(ui);
        });
        if outcome == Outcome::Open && modal.should_close() {
            outcome = Outcome::Cancelled;
        }
        outcome
    }

    fn contents(&mut self, ui: &mut egui::Ui) -> Outcome {
        ui.heading(&self.request.title);
        if let Some(note) = &self.note {
            ui.label(egui::RichText::new(note).small().weak());
        }
        let mut go_to = None;
        ui.horizontal(|ui| {
            if ui
                .add_enabled(self.folder.parent().is_some(), egui::Button::new("Up"))
                .on_hover_text("The folder above")
                .clicked()
            {
                go_to = self.folder.parent().map(Path::to_path_buf);
            }
            let name = ui.label("Folder");
            let edit = ui
                .add(egui::TextEdit::singleline(&mut self.folder_text).desired_width(f32::INFINITY))
                .labelled_by(name.id);
            if edit.lost_focus() && self.folder_text != self.folder.display().to_string() {
                let typed = PathBuf::from(self.folder_text.trim());
                if typed.is_dir() {
                    go_to = Some(typed);
                } else {
                    self.error = Some(format!("{} is not a folder", typed.display()));
                }
            }
        });
        let picked = self.listing(ui, &mut go_to);
        if let Some(folder) = go_to {
            self.go_to(folder);
        }
        if self.show_all_toggle(ui) {
            self.refresh();
        }
        if self.request.kind == Kind::Folder {
            self.new_folder_row(ui);
        } else {
            let name = ui.label("File name");
            ui.add(egui::TextEdit::singleline(&mut self.file_name).desired_width(f32::INFINITY))
                .labelled_by(name.id);
        }
        if let Some(error) = &self.error {
            ui.colored_label(ui.visuals().error_fg_color, error);
        }
        let mut outcome = picked.map_or(Outcome::Open, |path| self.confirm(Some(path)));
        ui.horizontal(|ui| {
            let confirm = match self.request.kind {
                Kind::Open => "Open",
                Kind::Save if self.replace.is_some() => "Replace",
                Kind::Save => "Save",
                Kind::Folder => "Choose this folder",
            };
            if ui.button(confirm).clicked() {
                outcome = self.confirm(None);
            }
            if ui.button("Cancel").clicked() {
                outcome = Outcome::Cancelled;
            }
        });
        outcome
    }

    /// The folder's entries: a click on a folder opens it, a click on a file takes its name,
    /// a double click on a file chooses it (returned).
    fn listing(&mut self, ui: &mut egui::Ui, go_to: &mut Option<PathBuf>) -> Option<PathBuf> {
        let mut picked = None;
        egui::Frame::group(ui.style()).show(ui, |ui| {
            egui::ScrollArea::vertical()
                .max_height(260.0)
                .auto_shrink([false, true])
                .show(ui, |ui| match &self.entries {
                    Err(error) => {
                        ui.colored_label(ui.visuals().error_fg_color, error);
                    }
                    Ok(entries) if entries.is_empty() => {
                        ui.weak("(empty)");
                    }
                    Ok(entries) => {
                        for entry in entries {
                            if entry.is_dir {
                                if ui
                                    .selectable_label(false, format!("{}/", entry.name))
                                    .clicked()
                                {
                                    *go_to = Some(self.folder.join(&entry.name));
                                }
                            } else if self.request.kind != Kind::Folder
                                && self.matches_filter(&entry.name)
                            {
                                let selected = self.file_name == entry.name;
                                let response = ui.selectable_label(selected, entry.name.as_str());
                                if response.double_clicked() {
                                    picked = Some(self.folder.join(&entry.name));
                                } else if response.clicked() {
                                    self.file_name.clone_from(&entry.name);
                                    self.replace = None;
                                }
                            }
                        }
                    }
                });
        });
        picked
    }

    /// The "all files" switch; true when it changed.
    fn show_all_toggle(&mut self, ui: &mut egui::Ui) -> bool {
        let text = match &self.request.filter {
            Some(filter) => format!(
                "Show every file (not only {} {}) and hidden ones",
                filter.name,
                filter
                    .extensions
                    .iter()
                    .map(|e| format!("*.{e}"))
                    .collect::<Vec<_>>()
                    .join(" ")
            ),
            None => "Show hidden files and folders".to_owned(),
        };
        ui.checkbox(&mut self.show_all, text).changed()
    }

    fn new_folder_row(&mut self, ui: &mut egui::Ui) {
        ui.horizontal(|ui| {
            let name = ui.label("New folder");
            ui.add(egui::TextEdit::singleline(&mut self.new_folder).desired_width(220.0))
                .labelled_by(name.id);
            if ui
                .add_enabled(
                    !self.new_folder.trim().is_empty(),
                    egui::Button::new("Create and open"),
                )
                .clicked()
            {
                let path = self.folder.join(self.new_folder.trim());
                match std::fs::create_dir_all(&path) {
                    Ok(()) => {
                        self.new_folder.clear();
                        self.go_to(path);
                    }
                    Err(error) => {
                        self.error = Some(format!("could not make {}: {error}", path.display()));
                    }
                }
            }
        });
    }

    /// Checks the choice (`picked`, else the name field or the listed folder): a file to open
    /// must exist, a save over an existing file is confirmed by a second click.
    fn confirm(&mut self, picked: Option<PathBuf>) -> Outcome {
        match self.request.kind {
            Kind::Folder => Outcome::Chosen(self.folder.clone()),
            Kind::Open => {
                let Some(path) = picked.or_else(|| self.typed_path()) else {
                    self.error = Some("choose a file, or type its name".to_owned());
                    return Outcome::Open;
                };
                if path.is_dir() {
                    self.go_to(path);
                    self.file_name.clear();
                    Outcome::Open
                } else if path.is_file() {
                    Outcome::Chosen(path)
                } else {
                    self.error = Some(format!("{} does not exist", path.display()));
                    Outcome::Open
                }
            }
            Kind::Save => {
                let Some(path) = picked.or_else(|| self.typed_path()) else {
                    self.error = Some("type a file name".to_owned());
                    return Outcome::Open;
                };
                let path = self.with_filter_extension(path);
                if path.is_dir() {
                    self.go_to(path);
                    return Outcome::Open;
                }
                if !path.parent().is_some_and(Path::is_dir) {
                    self.error = Some(format!("the folder of {} does not exist", path.display()));
                    return Outcome::Open;
                }
                if path.exists() && self.replace.as_ref() != Some(&path) {
                    self.error = Some(format!(
                        "{} exists: press Replace to write over it",
                        path.display()
                    ));
                    self.replace = Some(path);
                    return Outcome::Open;
                }
                Outcome::Chosen(path)
            }
        }
    }

    /// The name field as a path in the listed folder (an absolute path stays as typed).
    fn typed_path(&self) -> Option<PathBuf> {
        let name = self.file_name.trim();
        (!name.is_empty()).then(|| self.folder.join(name))
    }

    /// `path` with the filter's first extension when it has none of the filter's.
    fn with_filter_extension(&self, path: PathBuf) -> PathBuf {
        match &self.request.filter {
            Some(filter) if !filter.extensions.is_empty() => {
                let known = path
                    .extension()
                    .and_then(|e| e.to_str())
                    .is_some_and(|e| filter.extensions.iter().any(|x| x.eq_ignore_ascii_case(e)));
                if known {
                    path
                } else {
                    let mut name = path.into_os_string();
                    name.push(".");
                    name.push(&filter.extensions[0]);
                    PathBuf::from(name)
                }
            }
            _ => path,
        }
    }
}

/// The entries of `folder`, folders first, each group by name; hidden ones only with
/// `show_hidden`.
fn list(folder: &Path, show_hidden: bool) -> Result<Vec<Entry>, String> {
    let read = std::fs::read_dir(folder)
        .map_err(|error| format!("could not list {}: {error}", folder.display()))?;
    let mut entries: Vec<Entry> = read
        .filter_map(Result::ok)
        .map(|entry| Entry {
            name: entry.file_name().to_string_lossy().into_owned(),
            // Follows links, so a link to a folder opens like one.
            is_dir: entry.path().is_dir(),
        })
        .filter(|entry| show_hidden || !entry.name.starts_with('.'))
        .collect();
    entries.sort_by(|a, b| b.is_dir.cmp(&a.is_dir).then_with(|| a.name.cmp(&b.name)));
    Ok(entries)
}

#[cfg(test)]
mod tests {
    use super::super::Filter;
    use super::*;

    fn request(kind: Kind, folder: &Path) -> Request {
        Request {
            kind,
            title: "Test".to_owned(),
            filter: Some(Filter::new("Benchtop project", &["ron"])),
            file_name: String::new(),
            folder: Some(folder.to_path_buf()),
        }
    }

    #[test]
    fn listing_filters_and_choices_are_checked() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("sub")).unwrap();
        std::fs::write(dir.path().join("b.ron"), "()").unwrap();
        std::fs::write(dir.path().join("a.txt"), "").unwrap();
        std::fs::write(dir.path().join(".hidden.ron"), "").unwrap();
        let mut open = InWindowDialog::new(request(Kind::Open, dir.path()), None);
        let names: Vec<&str> = open
            .entries
            .as_ref()
            .unwrap()
            .iter()
            .map(|e| e.name.as_str())
            .collect();
        assert_eq!(
            names,
            ["sub", "a.txt", "b.ron"],
            "folders first, hidden left out"
        );
        assert!(open.matches_filter("b.ron") && !open.matches_filter("a.txt"));
        assert_eq!(open.confirm(None), Outcome::Open, "nothing chosen");
        open.file_name = "missing.ron".to_owned();
        assert_eq!(open.confirm(None), Outcome::Open);
        assert!(open.error.as_deref().unwrap().contains("does not exist"));
        open.file_name = "b.ron".to_owned();
        assert_eq!(
            open.confirm(None),
            Outcome::Chosen(dir.path().join("b.ron"))
        );

        let mut save = InWindowDialog::new(request(Kind::Save, dir.path()), None);
        save.file_name = "new".to_owned();
        assert_eq!(
            save.confirm(None),
            Outcome::Chosen(dir.path().join("new.ron"))
        );
        save.file_name = "b.ron".to_owned();
        assert_eq!(save.confirm(None), Outcome::Open, "replacing asks first");
        assert_eq!(
            save.confirm(None),
            Outcome::Chosen(dir.path().join("b.ron"))
        );
        save.file_name = "nowhere/x.ron".to_owned();
        assert_eq!(save.confirm(None), Outcome::Open);
        assert!(save.error.as_deref().unwrap().contains("does not exist"));

        let mut unreadable = InWindowDialog::new(request(Kind::Folder, dir.path()), None);
        unreadable.go_to(dir.path().join("b.ron"));
        assert!(
            unreadable
                .entries
                .as_ref()
                .unwrap_err()
                .contains("could not list")
        );
    }
}
