//! Scoring many SMILES on several OS threads. RDKit molecules never cross threads: each thread
//! parses its own share.

use crate::error::ChemError;

/// `score` of every SMILES on up to `threads` scoped threads (contiguous chunks), in input
/// order and identical to scoring serially. Should a thread panic, each entry of its chunk is
/// an error naming `operation` and the chunk.
pub fn map_smiles<S, T>(
    smiles: &[S],
    threads: usize,
    operation: &'static str,
    score: impl Fn(&str) -> Result<T, ChemError> + Sync,
) -> Vec<Result<T, ChemError>>
where
    S: AsRef<str> + Sync,
    T: Send,
{
    let serial = |part: &[S]| -> Vec<Result<T, ChemError>> {
        part.iter().map(|s| score(s.as_ref())).collect()
    };
    let threads = threads.clamp(1, smiles.len().max(1));
    if threads == 1 {
        return serial(smiles);
    }
    let chunk = smiles.len().div_ceil(threads);
    std::thread::scope(|scope| {
        let handles: Vec<_> = smiles
            .chunks(chunk)
            .map(|part| scope.spawn(move || serial(part)))
            .collect();
        handles
            .into_iter()
            .zip(smiles.chunks(chunk))
            .flat_map(|(handle, part)| {
                handle.join().unwrap_or_else(|_| {
                    part.iter()
                        .map(|s| {
                            Err(ChemError::Rdkit {
                                operation,
                                reason: format!(
                                    "worker thread panicked on a chunk containing {:?}",
                                    s.as_ref()
                                ),
                            })
                        })
                        .collect()
                })
            })
            .collect()
    })
}
