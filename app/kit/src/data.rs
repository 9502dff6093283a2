//! A tab's data: made or read from the panel's parameters (a synthetic set, a user's files),
//! shared with the other tabs, and kept with the project.
//!
//! [`DataStep`] is the task that makes it and knows how to save and restore it through the
//! data type's [`StoredData`] implementation, so a panel writes only its loader and its
//! storage format.

use std::ops::{Deref, DerefMut};
use std::sync::Arc;

use crate::project::Sidecar;
use crate::task::{Load, Runner, Task, TaskHandle};

/// Data kept in a panel's saved results `R` (its arrays in the sidecar).
pub trait StoredData<R>: Sized + Send + Sync + 'static {
    /// Writes the data into `results` (arrays to `sidecar` when saving a file).
    fn save(&self, results: &mut R, sidecar: Option<&Sidecar>) -> anyhow::Result<()>;

    /// The data saved in `results`, if any.
    fn restore(results: &R, sidecar: Option<&Sidecar>) -> anyhow::Result<Option<Self>>;
}

/// The task that makes or reads a tab's data `D` from the parameters `K`; it derefs to its
/// [`Task`] for the controls, the result and "settings changed".
pub struct DataStep<K, D> {
    task: Task<K, (), Arc<D>>,
    load: Load<K, D>,
}

impl<K: Clone + PartialEq + std::fmt::Debug + Send + 'static, D: Send + Sync + 'static>
    DataStep<K, D>
{
    /// A step whose jobs are named `name` and that makes its data with `load`.
    pub fn new(name: &'static str, load: Load<K, D>) -> Self {
        Self {
            task: Task::new(name),
            load,
        }
    }

    /// Makes or reads the data for the parameters `key` (paths relative to `project_dir`).
    pub fn start(&mut self, runner: &Runner<'_>, key: K, project_dir: Option<&std::path::Path>) {
        self.task.start_loading(runner, key, project_dir, self.load);
    }

    /// The data, once made.
    pub fn loaded(&self) -> Option<Arc<D>> {
        self.task.result().cloned()
    }

    /// Writes the data (if any) into `results`.
    pub fn save<R>(&self, results: &mut R, sidecar: Option<&Sidecar>) -> anyhow::Result<()>
    where
        D: StoredData<R>,
    {
        self.task
            .result()
            .map_or(Ok(()), |data| data.save(results, sidecar))
    }

    /// Takes back the data saved in `results`, made from the parameters `key`.
    pub fn restore<R>(
        &mut self,
        results: &R,
        sidecar: Option<&Sidecar>,
        key: K,
    ) -> anyhow::Result<()>
    where
        D: StoredData<R>,
    {
        if let Some(data) = D::restore(results, sidecar)? {
            self.task.set_result(key, Arc::new(data));
        }
        Ok(())
    }
}

impl<K, D> Deref for DataStep<K, D> {
    type Target = Task<K, (), Arc<D>>;

    fn deref(&self) -> &Self::Target {
        &self.task
    }
}

impl<K, D> DerefMut for DataStep<K, D> {
    fn deref_mut(&mut self) -> &mut Self::Target {
        &mut self.task
    }
}

impl<K: Clone + PartialEq + std::fmt::Debug, D: Send + Sync + 'static> TaskHandle
    for DataStep<K, D>
{
    fn poll(&mut self) -> bool {
        self.task.poll()
    }

    fn is_busy(&self) -> bool {
        self.task.is_busy()
    }

    fn cancel(&self) {
        self.task.cancel();
    }

    fn results_received(&self) -> u64 {
        self.task.results_received()
    }

    fn has_result(&self) -> bool {
        self.task.has_result()
    }

    fn made_from(&self) -> Option<u64> {
        self.task.made_from()
    }

    fn set_made_from(&mut self, digest: u64) {
        self.task.set_made_from(digest);
    }

    fn compute_time(&self) -> Option<std::time::Duration> {
        self.task.compute_time()
    }
}
