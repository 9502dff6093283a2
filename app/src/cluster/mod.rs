//! Sweeps and long runs on a Slurm cluster.
//!
//! A sweep's points are independent (parameters and a seed), so `benchtop sweep submit` writes
//! them into a self-describing job folder beside the project ([`folder`]) and submits an array
//! job whose tasks (`benchtop sweep run-task`, [`task`]) compute them with the sweep's own
//! evaluation and write one result file per point ([`points`]). `status` and `collect`
//! ([`collect`]) read the folders and ask Slurm ([`slurm`]) how each task stands ([`survey`]),
//! and `collect` merges the finished points into the project's sweep ([`merge`]): the same
//! points, bit for bit, as a local run. `benchtop run PROJECT --slurm` sends a whole project's
//! headless run as one job ([`submit`]). The window submits, watches and cancels sweep jobs
//! through the same code ([`watch`]).
//!
//! A job folder is read as untrusted data ([`untrusted`]): files only when regular and
//! bounded, no links followed out of it, Slurm ids checked, counts bounded.
//!
//! The job folder must be on a file system the nodes share with the submitting machine, and the
//! binary the tasks run (this one, or `--benchtop PATH`) must be readable there.

pub mod collect;
pub mod folder;
pub mod merge;
pub mod points;
pub mod slurm;
pub mod submit;
pub mod survey;
pub mod task;
pub mod untrusted;
pub mod watch;
