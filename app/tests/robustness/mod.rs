//! Issue 15's guarantees, one module per class: project files and their sidecars (`projects`),
//! the command line's inputs and outputs (`cli`), and fuzzing of every file reader (`fuzz`).

mod cli;
mod fuzz;
mod projects;
