//! Deterministic fuzzing of every reader of user files: valid seed files, mutated with a fixed
//! seed (bit flips, interesting bytes, huge numbers, cuts, repeats), fed to the reader. A reader
//! may refuse a file, but must never panic, abort or hang (issue 15).
//!
//! The suite runs a few hundred inputs per reader. A longer run, e.g. before a release:
//!
//! ```sh
//! BENCHTOP_FUZZ_ITERATIONS=20000 BENCHTOP_FUZZ_SEED=7 \
//!   cargo test --workspace --test workbench fuzz_ -- --test-threads 2
//! ```
//!
//! A failing input is written to `target/fuzz-failures/<reader>-<n>.bin` to reproduce it.

use std::panic::AssertUnwindSafe;
use std::path::{Path, PathBuf};

use crate::common;

/// How many mutated inputs each reader gets (default: a few seconds' worth in a debug build).
fn iterations(default: usize) -> usize {
    std::env::var("BENCHTOP_FUZZ_ITERATIONS")
        .ok()
        .and_then(|text| text.parse().ok())
        .unwrap_or(default)
}

/// A small, seeded generator (xorshift64*): the same inputs on every machine.
struct Rng(u64);

impl Rng {
    fn new(stream: u64) -> Self {
        let seed = std::env::var("BENCHTOP_FUZZ_SEED")
            .ok()
            .and_then(|text| text.parse().ok())
            .unwrap_or(1_u64);
        Self((seed ^ stream.wrapping_mul(0x9E37_79B9_7F4A_7C15)) | 1)
    }

    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            usize::try_from(self.next() % n as u64).unwrap_or(0)
        }
    }
}

/// One to four mutations of `seed`.
fn mutate(seed: &[u8], rng: &mut Rng) -> Vec<u8> {
    const INTERESTING: &[&[u8]] = &[
        b"\0",
        b"\xff",
        b"-1",
        b"0",
        b"1e308",
        b"NaN",
        b"inf",
        b"99999999999999999999",
        b"4294967296",
        b"(",
        b")",
        b"\"",
        b",",
        b"\n",
        b"\xef\xbb\xbf",
    ];
    let mut data = seed.to_vec();
    for _ in 0..=rng.below(4) {
        let at = rng.below(data.len() + 1);
        match rng.below(7) {
            0 if !data.is_empty() => {
                let i = at.min(data.len() - 1);
                data[i] ^= 1 << rng.below(8);
            }
            1 if !data.is_empty() => {
                let i = at.min(data.len() - 1);
                data[i] = [0, 0xff, 0x7f, 0x80, b'9'][rng.below(5)];
            }
            2 => {
                let piece = INTERESTING[rng.below(INTERESTING.len())];
                data.splice(at..at, piece.iter().copied());
            }
            3 => data.truncate(at),
            4 if !data.is_empty() => {
                let end = (at + 1 + rng.below(64)).min(data.len());
                let start = at.min(end.saturating_sub(1));
                let chunk = data[start..end].to_vec();
                data.splice(start..start, chunk);
            }
            5 if !data.is_empty() => {
                let end = (at + 1 + rng.below(16)).min(data.len());
                let start = at.min(end.saturating_sub(1));
                data.drain(start..end);
            }
            _ => {
                // A digit run in place of a digit: sizes and counts become huge.
                if let Some(i) = data[at.min(data.len())..]
                    .iter()
                    .position(u8::is_ascii_digit)
                {
                    let i = at + i;
                    data.splice(i..=i, b"9999999999".iter().copied());
                }
            }
        }
    }
    data
}

/// Feeds `iterations` mutations of the seeds to `read`; any panic fails the test with the
/// input saved for reproduction.
fn fuzz(name: &str, seeds: &[Vec<u8>], iterations: usize, mut read: impl FnMut(&[u8])) {
    assert!(!seeds.is_empty(), "{name}: no seed inputs");
    let mut rng = Rng::new(name.bytes().map(u64::from).sum());
    for seed in seeds {
        let outcome = std::panic::catch_unwind(AssertUnwindSafe(|| read(seed)));
        assert!(outcome.is_ok(), "{name}: a seed input panics");
    }
    for n in 0..iterations {
        let seed = &seeds[rng.below(seeds.len())];
        let input = mutate(seed, &mut rng);
        let outcome = std::panic::catch_unwind(AssertUnwindSafe(|| read(&input)));
        if outcome.is_err() {
            let dir = common::repo_root().join("target/fuzz-failures");
            let _ = std::fs::create_dir_all(&dir);
            let file = dir.join(format!("{name}-{n}.bin"));
            let _ = std::fs::write(&file, &input);
            panic!("{name}: input {n} panics (saved as {})", file.display());
        }
    }
}

fn asset(path: &str) -> Vec<u8> {
    std::fs::read(common::repo_root().join(path)).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// Writes `bytes` as `name` in a temporary folder for readers that take a path.
struct Scratch {
    dir: tempfile::TempDir,
}

impl Scratch {
    fn new() -> Self {
        Self {
            dir: tempfile::tempdir().expect("temporary folder"),
        }
    }

    fn write(&self, name: &str, bytes: &[u8]) -> PathBuf {
        let path = self.dir.path().join(name);
        std::fs::write(&path, bytes).expect("written");
        path
    }

    fn path(&self) -> &Path {
        self.dir.path()
    }
}

fn npy_seed(shape: &[usize], values: &[f64]) -> Vec<u8> {
    use ndarray_npy::WriteNpyExt as _;
    let array =
        ndarray::ArrayD::from_shape_vec(ndarray::IxDyn(shape), values.to_vec()).expect("shape");
    let mut bytes = Vec::new();
    array.write_npy(&mut bytes).expect("npy");
    bytes
}

#[test]
fn fuzz_project_files() {
    let mut seeds: Vec<Vec<u8>> = std::fs::read_dir(common::repo_root().join("projects"))
        .expect("projects/")
        .filter_map(Result::ok)
        .map(|entry| entry.path())
        .filter(|path| path.extension().is_some_and(|e| e == "ron"))
        .map(|path| std::fs::read(path).expect("readable"))
        .collect();
    seeds.push(
        br#"(panels: [(id: (1), state: Ising(())), (id: (2), state: Spectra(()))],
            sweeps: [(name: "s", pane: (1), axes: [(param: "mc.beta", grid: Range(start: 0.1, end: 0.5, count: 3, spacing: Linear))],
                      outputs: ["mc.bond_energy_per_site"], results: [(coords: [0.1], outputs: {"mc.bond_energy_per_site": 1.5})])],
            presets: {"test": (set: [(pane: (1), key: "mc.size", value: 8)])})"#
            .to_vec(),
    );
    let scratch = Scratch::new();
    fuzz("project", &seeds, iterations(400), |bytes| {
        let text = String::from_utf8_lossy(bytes);
        let path = scratch.path().join("fuzz.ron");
        if let Ok(doc) = benchtop::catalog::ProjectDoc::parse(&text, &path)
            && let Ok(mut session) = benchtop::session::Session::from_doc(doc, Some(&path))
        {
            let _ = session.apply_preset("test");
            let _ = session.to_text();
            for panel in session.panels.values() {
                let _ = panel.validate();
                let _ = panel.sweep_support();
            }
        }
    });
}

#[test]
fn fuzz_npy_and_sidecar_arrays() {
    let seeds = vec![
        npy_seed(&[2, 3], &[1.0, 2.0, 3.0, 4.0, 5.0, f64::NAN]),
        npy_seed(&[4], &[0.5; 4]),
        npy_seed(&[1, 1, 2], &[-1.0, 1.0]),
    ];
    let scratch = Scratch::new();
    let sidecar = benchtop_kit::project::Sidecar::new(scratch.path());
    fuzz("npy", &seeds, iterations(600), |bytes| {
        let _ = benchtop_kit::compute::npy::read_npy_f64(bytes);
        scratch.write("a.npy", bytes);
        let _ = sidecar.read_f64("a.npy");
        let _ = sidecar.read_i8("a.npy");
        let _ = benchtop_panel_spectra::engine::data::load_npy(
            &scratch.path().join("a.npy"),
            &benchtop_panel_spectra::engine::data::LoadOptions::default(),
        );
        let _ = benchtop_panel_neurotree::engine::load::load_series(
            &scratch.path().join("a.npy"),
            benchtop_panel_neurotree::engine::load::TimeAxis::default(),
        );
    });
}

#[test]
fn fuzz_npz_trial_archives() {
    let scratch = Scratch::new();
    let set = benchtop_panel_findr::engine::synthetic::generate(
        &benchtop_panel_findr::engine::synthetic::SyntheticParams {
            n_trials: 3,
            n_neurons: 4,
            min_bins: 5,
            max_bins: 6,
            ..benchtop_panel_findr::engine::synthetic::SyntheticParams::default()
        },
        1,
        &benchtop_kit::compute::Progress::new(),
        &benchtop_kit::compute::CancelToken::new(),
    )
    .expect("generates");
    let path = scratch.path().join("seed.npz");
    benchtop_panel_findr::engine::load::save_npz(&set.trials, &path).expect("saves");
    let seeds = vec![std::fs::read(&path).expect("readable")];
    fuzz("npz", &seeds, iterations(300), |bytes| {
        let path = scratch.write("a.npz", bytes);
        let _ = benchtop_panel_findr::engine::load::load_trials(&path, 0.01);
    });
}

#[test]
fn fuzz_csv_smiles_and_sdf_molecule_sets() {
    let seeds = vec![
        b"smiles,score\nCCO,1.5\nc1ccccc1O,2\nCC(=O)Nc1ccc(O)cc1,0.3\n".to_vec(),
        b"CCO ethanol\nc1ccccc1 benzene\n# comment\nC1CC1\n".to_vec(),
        asset_sdf(),
    ];
    fuzz("molecules", &seeds, iterations(300), |bytes| {
        let text = String::from_utf8_lossy(bytes);
        let _ = benchtop_panel_molstitch::chem::offline::read_csv(&text, "fuzz.csv");
        let _ = benchtop_panel_molstitch::chem::offline::read_smi(&text, "fuzz.smi");
        let _ = benchtop_panel_molstitch::chem::offline::read_sdf(&text, "fuzz.sdf");
    });
}

/// A two-molecule SDF written by hand (methane and ethanol's heavy atoms).
fn asset_sdf() -> Vec<u8> {
    let methane = "methane\n  fuzz\n\n  1  0  0  0  0  0  0  0  0  0999 V2000\n    0.0000    0.0000    0.0000 C   0  0  0  0  0  0  0  0  0  0  0  0\nM  END\n$$$$\n";
    let ethanol = "ethanol\n  fuzz\n\n  3  2  0  0  0  0  0  0  0  0999 V2000\n    0.0000    0.0000    0.0000 C   0  0\n    1.5000    0.0000    0.0000 C   0  0\n    2.2000    1.2000    0.0000 O   0  0\n  1  2  1  0\n  2  3  1  0\nM  END\n>  <score>\n0.7\n\n$$$$\n";
    format!("{methane}{ethanol}").into_bytes()
}

#[test]
fn fuzz_mat_files() {
    let seeds = vec![asset("assets/neurotree/gw/NAP_001.mat")];
    let scratch = Scratch::new();
    fuzz("mat", &seeds, iterations(60), |bytes| {
        let path = scratch.write("a.mat", bytes);
        let _ = benchtop_panel_neurotree::engine::load::load_series(
            &path,
            benchtop_panel_neurotree::engine::load::TimeAxis::default(),
        );
    });
}

#[test]
fn fuzz_netcdf_files() {
    let seeds = vec![asset("assets/spectra/uwnd_mean.nc")];
    let scratch = Scratch::new();
    fuzz("netcdf", &seeds, iterations(40), |bytes| {
        let path = scratch.write("a.nc", bytes);
        let _ = benchtop_panel_spectra::engine::data::load_field(
            &path,
            &benchtop_panel_spectra::engine::data::LoadOptions::default(),
        );
    });
}

#[test]
fn fuzz_every_panel_kinds_project_state() {
    // One minimal panel of every kind in the catalog (new panels are fuzzed without a change
    // here), with a sweep and a preset to mutate.
    let seeds: Vec<Vec<u8>> = benchtop::catalog::catalog()
        .iter()
        .map(|kind| {
            let variant = benchtop::catalog::create(kind)
                .and_then(|panel| benchtop::catalog::save(panel.as_ref(), None).ok())
                .map(|state| ron::to_string(&state).expect("RON"))
                .expect("every kind saves");
            format!("(format_version: 1, panels: [(id: (1), state: {variant})])").into_bytes()
        })
        .collect();
    let scratch = Scratch::new();
    fuzz(
        "panel-kinds",
        &seeds,
        iterations(40 * seeds.len()),
        |bytes| {
            let text = String::from_utf8_lossy(bytes);
            let path = scratch.path().join("kinds.ron");
            if let Ok(doc) = benchtop::catalog::ProjectDoc::parse(&text, &path)
                && let Ok(session) = benchtop::session::Session::from_doc(doc, Some(&path))
            {
                let _ = session.to_text();
                for panel in session.panels.values() {
                    let _ = panel.validate();
                    let _ = panel.sweep_support();
                    let _ = panel.declared_params();
                }
            }
        },
    );
}

#[test]
fn fuzz_item_tables_smiles_files_trial_csvs_edge_lists_and_series() {
    let scratch = Scratch::new();
    let linnet = vec![
        b"item,x1,x2,y1\na,1,0,1\nb,0,1,0\nc,1,1,1\n".to_vec(),
        b"x1,x2,y1,y2\n0.5,1,2,3\n1,2,3,4\n".to_vec(),
    ];
    fuzz("linnet-csv", &linnet, iterations(200), |bytes| {
        let path = scratch.write("items.csv", bytes);
        let _ = benchtop_panel_linnet::engine::data::read_csv(&path);
    });
    let smiles = vec![
        b"id,SMILES\n1,CCO\n2,c1ccccc1\n".to_vec(),
        b"smiles name\nCCO e\n".to_vec(),
    ];
    fuzz("smiles-file", &smiles, iterations(200), |bytes| {
        let text = String::from_utf8_lossy(bytes);
        let _ = benchtop_panel_molstitch::chem::smiles_file::smiles_column(&text, "fuzz.csv");
        let _ = benchtop_panel_molstitch::chem::smiles_file::smi_lines(&text);
    });
    let trials = vec![b"trial,bin,neuron,count\n0,0,0,1\n0,1,0,2\n1,0,0,0\n".to_vec()];
    fuzz("findr-csv", &trials, iterations(200), |bytes| {
        let path = scratch.write("trials.csv", bytes);
        let _ = benchtop_panel_findr::engine::load::load_trials(&path, 0.01);
    });
    let edges = vec![
        b"graph,source,target,label\na,0,1,\na,1,2,\na,2,0,\na,3,,0.5\na,,,7\nb,0,1,\nb,,,2.5\n"
            .to_vec(),
        b"graph,source,target,label\ng,0,1,\ng,1,2,\n".to_vec(),
    ];
    fuzz("hymn-edge-list", &edges, iterations(200), |bytes| {
        let text = String::from_utf8_lossy(bytes);
        let _ = benchtop_panel_hymn::engine::load::parse_edge_list(
            &text,
            "fuzz.csv",
            benchtop_panel_hymn::engine::counts::Substructure::Triangle,
        );
    });
    let series = vec![
        b"time,x,y,value,truth\n0,0,0,1,1\n0,1,0,2,2\n1,0,0,3,3\n1,1,0,1,1\n".to_vec(),
        b"date,a,b,a_truth,b_truth\n2020-01-01,1,2,1,2\n2020-01-02,2,3,2,3\n".to_vec(),
    ];
    fuzz("rcgp-csv", &series, iterations(200), |bytes| {
        let text = String::from_utf8_lossy(bytes);
        let _ = benchtop_panel_rcgp::engine::data::parse_csv("fuzz.csv", &text, 0);
    });
}

#[test]
fn fuzz_language_model_weight_files() {
    use benchtop_panel_watermark::engine::gru;
    let scratch = Scratch::new();
    // A tiny GRU's weights as the seed: every tensor, the config and the loss history.
    let words: std::sync::Arc<Vec<String>> =
        std::sync::Arc::new((0..16).map(|i| format!("w{i}")).collect());
    let stream: Vec<u32> = (0..400).map(|i| (i * 7 % 16) as u32).collect();
    let config = gru::GruConfig {
        embedding: 4,
        hidden: 4,
        window: 4,
        seq_len: 8,
        batch: 4,
        epochs: 1,
        ..gru::GruConfig::default()
    };
    let model = gru::train(
        &stream,
        std::sync::Arc::clone(&words),
        &config,
        1,
        &benchtop_kit::compute::Progress::new(),
        &benchtop_kit::compute::CancelToken::new(),
    )
    .expect("trains");
    let seed_file = scratch.path().join("seed.safetensors");
    model.save(&seed_file).expect("saved");
    let seeds = vec![std::fs::read(&seed_file).expect("read")];
    fuzz("gru-weights", &seeds, iterations(120), |bytes| {
        let path = scratch.write("w.safetensors", bytes);
        let _ = gru::GruModel::load(&path, std::sync::Arc::clone(&words));
    });
}
