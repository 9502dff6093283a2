//! Thread pools for engine work.

use crate::ComputeError;

/// Runs `work` on a one-thread rayon pool whose thread is called `name`. The neural models in
/// the engines multiply matrices of tens to about a hundred units; splitting each product across
/// threads gains nothing or loses (measured in docs/benchmarks.md), and one thread leaves the
/// other cores to whatever else runs (another panel, a sweep). Candle's CPU products and any
/// `par_iter` inside `work` use this pool.
pub fn single_threaded<T>(
    name: &str,
    work: impl FnOnce() -> Result<T, ComputeError> + Send,
) -> Result<T, ComputeError>
where
    T: Send,
{
    let thread_name = name.to_owned();
    rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .thread_name(move |_| thread_name.clone())
        .build()
        .map_err(|e| ComputeError::Numerical(format!("cannot start the {name} thread: {e}")))?
        .install(work)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn work_runs_on_one_named_thread() {
        let (threads, name) = single_threaded("engine-model", || {
            Ok((
                rayon::current_num_threads(),
                std::thread::current().name().map(str::to_owned),
            ))
        })
        .unwrap();
        assert_eq!(threads, 1);
        assert_eq!(name.as_deref(), Some("engine-model"));
        let failed: Result<(), _> =
            single_threaded("engine-model", || Err(ComputeError::Cancelled));
        assert!(matches!(failed, Err(ComputeError::Cancelled)));
    }
}
