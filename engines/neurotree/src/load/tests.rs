use super::*;
use crate::connectivity::static_fc;
use std::fs;

fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let path = dir.join(name);
    fs::write(&path, text).expect("writes");
    path
}

/// The message of an expected error.
fn message<T: std::fmt::Debug>(result: Result<T, ComputeError>) -> String {
    result.expect_err("an error was expected").to_string()
}

/// 3 ROIs × 5 time points with distinct values.
fn roi_by_time() -> Matrix {
    Matrix::from_rows(&[
        vec![1.0, 2.5, -3.0, 4.0, 0.125],
        vec![0.5, -1.0, 2.0, 7.0, 3.0],
        vec![9.0, 8.0, -7.5, 6.0, 5.0],
    ])
    .expect("matrix")
}

fn csv_text(table: &Matrix) -> String {
    let mut text = String::new();
    for i in 0..table.rows() {
        let cells: Vec<String> = table.row(i).iter().map(|v| format!("{v:?}")).collect();
        text.push_str(&cells.join(","));
        text.push('\n');
    }
    text
}

#[test]
fn csv_round_trip_with_each_time_axis() {
    let dir = tempfile::tempdir().expect("tempdir");
    let series = roi_by_time();
    // Stored as time × ROI (5 × 3): Rows and Auto (longer axis) both give ROIs × time back.
    let stored = write(dir.path(), "a.csv", &csv_text(&series.transpose()));
    assert_eq!(
        load_series(&stored, TimeAxis::Rows).expect("loads").series,
        series
    );
    assert_eq!(
        load_series(&stored, TimeAxis::Auto).expect("loads").series,
        series
    );
    // Read the other way the same file is 5 "ROIs" × 3 time points.
    let swapped = load_series(&stored, TimeAxis::Columns).expect("loads");
    assert_eq!(swapped.series, series.transpose());
    assert_eq!(swapped.roi_names, None);
    // Stored as ROI × time (3 × 5).
    let stored = write(dir.path(), "b.csv", &csv_text(&series));
    assert_eq!(
        load_series(&stored, TimeAxis::Columns)
            .expect("loads")
            .series,
        series
    );
    assert_eq!(
        load_series(&stored, TimeAxis::Auto).expect("loads").series,
        series
    );
}

#[test]
fn csv_header_gives_roi_names_and_time_down_the_rows() {
    let dir = tempfile::tempdir().expect("tempdir");
    let series = roi_by_time();
    let text = format!("left, right ,mid\n{}", csv_text(&series.transpose()));
    let path = write(dir.path(), "h.csv", &text);
    let loaded = load_series(&path, TimeAxis::Auto).expect("loads");
    assert_eq!(loaded.series, series);
    assert_eq!(
        loaded.roi_names,
        Some(vec![
            "left".to_owned(),
            "right".to_owned(),
            "mid".to_owned()
        ])
    );
    let e = message(load_series(&path, TimeAxis::Columns));
    assert!(e.contains("h.csv") && e.contains("header"), "{e}");
}

#[test]
fn auto_refuses_a_square_table() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = write(dir.path(), "sq.csv", "1,2\n3,4\n");
    let e = message(load_series(&path, TimeAxis::Auto));
    assert!(e.contains("sq.csv") && e.contains("2 × 2"), "{e}");
    let rows = load_series(&path, TimeAxis::Rows).expect("explicit axis");
    assert_eq!(rows.series.row(0), &[1.0, 3.0]);
}

#[test]
fn csv_bad_cell_is_named_by_line_and_column() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = write(dir.path(), "bad.csv", "1,2,3\n4,five,6\n7,8,9\n1,1,1\n");
    let e = message(load_series(&path, TimeAxis::Rows));
    assert!(
        e.contains("bad.csv") && e.contains("line 2, column 2") && e.contains("`five`"),
        "{e}"
    );
    let path = write(dir.path(), "nan.csv", "1,2,3\n4,5,6\n7,8,NaN\n1,1,1\n");
    let e = message(load_series(&path, TimeAxis::Rows));
    assert!(
        e.contains("line 3, column 3") && e.contains("not finite"),
        "{e}"
    );
    let path = write(dir.path(), "inf.csv", "1,2,3\n4,5,6\n7,8,9\n1,inf,1\n");
    let e = message(load_series(&path, TimeAxis::Rows));
    assert!(e.contains("line 4, column 2"), "{e}");
}

#[test]
fn csv_ragged_row_is_named() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = write(dir.path(), "ragged.csv", "a,b,c\n1,2,3\n4,5\n6,7,8\n");
    let e = message(load_series(&path, TimeAxis::Rows));
    assert!(
        e.contains("ragged.csv") && e.contains("line 3 has 2 cells") && e.contains("line 1 has 3"),
        "{e}"
    );
}

#[test]
fn npy_with_a_huge_claimed_shape_is_refused_with_the_file() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("huge.npy");
    fs::write(&path, benchtop_compute::npy::testing::huge_claim()).expect("writes");
    let e = message(load_series(&path, TimeAxis::Auto));
    assert!(
        e.contains("huge.npy") && e.contains("(100000000, 100000000)") && e.contains("65 bytes"),
        "{e}"
    );
    // Integer arrays read as f64.
    let array = ndarray::Array2::from_shape_fn((3, 5), |(i, j)| (10 * i + j) as i32);
    let path = dir.path().join("ints.npy");
    ndarray_npy::write_npy(&path, &array).expect("writes");
    let loaded = load_series(&path, TimeAxis::Columns).expect("loads").series;
    assert_eq!(loaded.as_slice()[6], 11.0);
}

#[test]
fn npy_round_trip_f64_and_f32() {
    let dir = tempfile::tempdir().expect("tempdir");
    let series = roi_by_time();
    let array = ndarray::Array2::from_shape_vec((3, 5), series.as_slice().to_vec()).expect("shape");
    let path = dir.path().join("x.npy");
    ndarray_npy::write_npy(&path, &array).expect("writes");
    assert_eq!(
        load_series(&path, TimeAxis::Columns).expect("loads").series,
        series
    );
    // Time × ROI in f32 (every value is exact in f32).
    let path32 = dir.path().join("y.npy");
    ndarray_npy::write_npy(&path32, &array.t().mapv(|v| v as f32)).expect("writes");
    assert_eq!(
        load_series(&path32, TimeAxis::Auto).expect("loads").series,
        series
    );
    // 1-D is refused with the shape named.
    let path1 = dir.path().join("z.npy");
    ndarray_npy::write_npy(&path1, &ndarray::Array1::<f64>::zeros(4)).expect("writes");
    let e = message(load_series(&path1, TimeAxis::Auto));
    assert!(
        e.contains("z.npy") && e.contains("1 dimension") && e.contains("2-D"),
        "{e}"
    );
}

#[test]
fn unknown_extension_and_missing_file_are_errors() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = write(dir.path(), "a.txt", "1,2\n");
    assert!(message(load_series(&path, TimeAxis::Auto)).contains("a.txt"));
    let gone = dir.path().join("gone.csv");
    assert!(message(load_series(&gone, TimeAxis::Auto)).contains("gone.csv"));
}

/// Three subjects of 3 ROIs × 6 time points, stored time × ROI with a header.
fn cohort_dir() -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("tempdir");
    for (k, id) in ["s1", "s2", "s3"].iter().enumerate() {
        let mut text = String::from("A,B,C\n");
        for t in 0..6 {
            let base = (k * 10 + t) as f64;
            text.push_str(&format!(
                "{},{},{}\n",
                base,
                base * 0.5 + (t % 2) as f64,
                -base
            ));
        }
        write(dir.path(), &format!("{id}.csv"), &text);
    }
    dir
}

#[test]
fn folder_with_demographics_and_networks() {
    let dir = cohort_dir();
    write(
        dir.path(),
        "demographics.csv",
        "site,AGE,id,Group\nx,31.5,s2,Patient\nx,40,s1,hc\ny,22,s3,1\nz,50,extra,control\n",
    );
    write(
        dir.path(),
        "networks.csv",
        "roi,network\nC,Motor\nA,Visual\nB,Motor\n",
    );
    let data = load_folder(dir.path(), TimeAxis::Auto).expect("loads");
    assert_eq!(data.roi_names, ["A", "B", "C"]);
    assert_eq!(data.network_names, ["Motor", "Visual"]);
    assert_eq!(data.network_of_roi, [1, 0, 0]);
    let ids: Vec<&str> = data.subjects.iter().map(|s| s.id.as_str()).collect();
    assert_eq!(ids, ["s1", "s2", "s3"]);
    let groups: Vec<Group> = data.subjects.iter().map(|s| s.group).collect();
    assert_eq!(groups, [Group::Control, Group::Patient, Group::Patient]);
    let ages: Vec<f64> = data.subjects.iter().map(|s| s.age_years).collect();
    assert_eq!(ages, [40.0, 31.5, 22.0]);
    assert_eq!(data.subjects[1].series.get(0, 2), 12.0);
    assert_eq!(data.subjects[1].series.get(2, 2), -12.0);
    assert_eq!(data.subjects[0].series.cols(), 6);
}

#[test]
fn without_side_tables_everyone_is_a_control_of_age_zero_in_one_network() {
    let dir = tempfile::tempdir().expect("tempdir");
    let series = roi_by_time();
    write(dir.path(), "p.csv", &csv_text(&series));
    write(dir.path(), "q.csv", &csv_text(&series));
    let data = load_folder(dir.path(), TimeAxis::Columns).expect("loads");
    assert_eq!(data.roi_names, ["ROI 1", "ROI 2", "ROI 3"]);
    assert_eq!(data.network_names, [ALL_ROIS_NETWORK]);
    assert_eq!(data.network_of_roi, [0, 0, 0]);
    assert!(
        data.subjects
            .iter()
            .all(|s| s.group == Group::Control && s.age_years == 0.0)
    );
}

#[test]
fn subject_missing_from_demographics_is_named() {
    let dir = cohort_dir();
    write(
        dir.path(),
        "demographics.csv",
        "id,group,age\ns1,control,30\n",
    );
    let e = message(load_folder(dir.path(), TimeAxis::Auto));
    assert!(
        e.contains("demographics.csv") && e.contains("s2, s3"),
        "{e}"
    );
}

#[test]
fn unknown_group_word_is_named_with_its_line() {
    let dir = cohort_dir();
    write(
        dir.path(),
        "demographics.csv",
        "id,group,age\ns1,control,30\ns2,maybe,31\ns3,SZ,32\n",
    );
    let e = message(load_folder(dir.path(), TimeAxis::Auto));
    assert!(
        e.contains("line 3") && e.contains("`maybe`") && e.contains("control"),
        "{e}"
    );
    assert_eq!(parse_group(" HC "), Some(Group::Control));
    assert_eq!(parse_group("Patient"), Some(Group::Patient));
    assert_eq!(parse_group("2"), None);
}

#[test]
fn bad_age_and_missing_column_are_named() {
    let dir = cohort_dir();
    let path = write(dir.path(), "demo.csv", "id,group,age\ns1,control,-3\n");
    let e = message(load_demographics(&path));
    assert!(e.contains("line 2") && e.contains("`-3`"), "{e}");
    let path = write(dir.path(), "demo2.csv", "id,group\ns1,control\n");
    let e = message(load_demographics(&path));
    assert!(e.contains("demo2.csv") && e.contains("`age`"), "{e}");
}

#[test]
fn differing_roi_count_names_the_first_file_that_differs() {
    let dir = tempfile::tempdir().expect("tempdir");
    let four = "1,2,3,4\n5,6,7,8\n9,1,2,3\n4,5,6,7\n8,9,1,2\n";
    let three = "1,2,3\n5,6,7\n9,1,2\n4,5,6\n8,9,1\n";
    let files = vec![
        write(dir.path(), "a.csv", three),
        write(dir.path(), "b.csv", four),
        write(dir.path(), "c.csv", four),
    ];
    let spec = DatasetSpec {
        series_files: files,
        demographics: None,
        networks: None,
        roi_names: None,
        time_axis: TimeAxis::Rows,
    };
    let e = message(load_dataset(&spec));
    assert!(
        e.contains("b.csv") && e.contains("4 ROIs") && e.contains("has 3"),
        "{e}"
    );
    assert!(!e.contains("c.csv"), "{e}");
}

#[test]
fn network_file_must_cover_every_roi() {
    let dir = cohort_dir();
    write(dir.path(), "networks.csv", "roi,network\nA,V\nB,V\n");
    let e = message(load_folder(dir.path(), TimeAxis::Auto));
    assert!(
        e.contains("networks.csv") && e.contains("no network for ROI(s) C"),
        "{e}"
    );
    write(
        dir.path(),
        "networks.csv",
        "roi,network\nA,V\nB,V\nC,V\nD,V\n",
    );
    let e = message(load_folder(dir.path(), TimeAxis::Auto));
    assert!(e.contains("not in the data: D"), "{e}");
}

#[test]
fn spec_round_trips_through_serde_with_defaults() {
    let spec: DatasetSpec = serde_json::from_str(r#"{"series_files":["a.csv"]}"#).expect("parses");
    assert_eq!(spec.time_axis, TimeAxis::Auto);
    assert_eq!(spec.demographics, None);
    let text = serde_json::to_string(&spec).expect("serializes");
    assert_eq!(
        serde_json::from_str::<DatasetSpec>(&text).expect("parses"),
        spec
    );
}

#[test]
fn real_sample_is_five_subjects_of_94_rois_by_355_volumes() {
    let data = real_sample().expect("the bundled sample loads");
    assert_eq!(data.subjects.len(), 5);
    let ids: Vec<&str> = data.subjects.iter().map(|s| s.id.as_str()).collect();
    assert_eq!(ids, ["NAP_001", "NAP_002", "NAP_007", "NAP_009", "NAP_013"]);
    for s in &data.subjects {
        assert_eq!((s.series.rows(), s.series.cols()), (94, 355), "{}", s.id);
        assert!(s.series.as_slice().iter().all(|v| v.is_finite()));
        assert_eq!((s.group, s.age_years), (Group::Control, 0.0));
        // Real BOLD: no ROI is constant.
        for i in 0..94 {
            let row = s.series.row(i);
            assert!(
                row.iter().any(|&v| v != row[0]),
                "{} ROI {i} is constant",
                s.id
            );
        }
    }
    // ROI names are rois.csv's `roi` column, read here independently.
    let text = fs::read_to_string(real_sample_dir().join("rois.csv")).expect("reads");
    let names: Vec<&str> = text
        .lines()
        .skip(1)
        .filter_map(|l| l.split(',').nth(1))
        .collect();
    assert_eq!(data.roi_names, names);
    assert_eq!(data.roi_names[0], "Precentral_L");
    assert_eq!(data.roi_names[93], "Temporal_Inf_R");
    assert_eq!(data.network_names.len(), 8);
    assert!(!data.network_names.iter().any(|n| n == ALL_ROIS_NETWORK));
    let thalamus = data
        .roi_names
        .iter()
        .position(|n| n == "Thalamus_L")
        .expect("Thalamus_L");
    assert_eq!(
        data.network_names[data.network_of_roi[thalamus]],
        "Subcortical"
    );

    let fc = static_fc(&data.subjects[0].series).expect("FC");
    assert_eq!((fc.rows(), fc.cols()), (94, 94));
    for i in 0..94 {
        assert!((fc.get(i, i) - 1.0).abs() < 1e-12);
        for j in 0..94 {
            assert_eq!(fc.get(i, j), fc.get(j, i));
            assert!((0.0..=1.0 + 1e-12).contains(&fc.get(i, j)));
        }
    }
}

/// A minimal uncompressed little-endian MATLAB v5 file holding real double arrays
/// (name, rows, cols, column-major values).
fn mat_v5(arrays: &[(&str, usize, usize, Vec<f64>)]) -> Vec<u8> {
    fn tagged(out: &mut Vec<u8>, kind: u32, payload: &[u8]) {
        out.extend_from_slice(&kind.to_le_bytes());
        out.extend_from_slice(&u32::try_from(payload.len()).expect("size").to_le_bytes());
        out.extend_from_slice(payload);
        while !out.len().is_multiple_of(8) {
            out.push(0);
        }
    }
    let mut file = vec![b' '; 116];
    file[..20].copy_from_slice(b"MATLAB 5.0 MAT-file ");
    file.extend_from_slice(&[0; 8]);
    file.extend_from_slice(&0x0100u16.to_le_bytes());
    file.extend_from_slice(b"IM");
    for (name, rows, cols, values) in arrays {
        let mut body = Vec::new();
        let mut flags = 6u32.to_le_bytes().to_vec(); // mxDOUBLE_CLASS
        flags.extend_from_slice(&[0; 4]);
        tagged(&mut body, 6, &flags); // miUINT32
        let mut dims = i32::try_from(*rows).expect("rows").to_le_bytes().to_vec();
        dims.extend_from_slice(&i32::try_from(*cols).expect("cols").to_le_bytes());
        tagged(&mut body, 5, &dims); // miINT32
        tagged(&mut body, 1, name.as_bytes()); // miINT8
        let data: Vec<u8> = values.iter().flat_map(|v| v.to_le_bytes()).collect();
        tagged(&mut body, 9, &data); // miDOUBLE
        tagged(&mut file, 14, &body); // miMATRIX
    }
    file
}

#[test]
fn mat_reads_tc_or_the_only_2d_variable_and_names_ambiguity() {
    let dir = tempfile::tempdir().expect("tempdir");
    let series = roi_by_time();
    let column_major: Vec<f64> = series.transpose().as_slice().to_vec();
    let path = dir.path().join("tc.mat");
    let other = ("other", 2, 2, vec![1.0, 2.0, 3.0, 4.0]);
    fs::write(
        &path,
        mat_v5(&[other.clone(), ("tc", 3, 5, column_major.clone())]),
    )
    .expect("writes");
    assert_eq!(
        load_series(&path, TimeAxis::Columns).expect("loads").series,
        series
    );
    let path = dir.path().join("only.mat");
    fs::write(&path, mat_v5(&[("bold", 3, 5, column_major.clone())])).expect("writes");
    assert_eq!(
        load_series(&path, TimeAxis::Auto).expect("loads").series,
        series
    );
    let path = dir.path().join("two.mat");
    fs::write(&path, mat_v5(&[("bold", 3, 5, column_major), other])).expect("writes");
    let e = message(load_series(&path, TimeAxis::Auto));
    assert!(
        e.contains("two.mat") && e.contains("`bold` (3 × 5)") && e.contains("`other` (2 × 2)"),
        "{e}"
    );
}

#[test]
fn real_sample_feeds_the_model_features() {
    let data = real_sample().expect("loads");
    let graphs = crate::features::subject_graphs(&data, &crate::features::FeatureParams::default())
        .expect("features");
    assert_eq!(graphs.len(), 5);
    for g in &graphs {
        assert_eq!(g.static_fc.rows(), 94);
        assert_eq!(g.dynamic_norm.len(), 2);
        assert_eq!(g.label, 0);
    }
}

#[test]
fn robust_a_truncated_mat_file_is_reported_as_unreadable_not_as_empty() {
    let dir = tempfile::tempdir().expect("tempdir");
    let series = roi_by_time();
    let whole = mat_v5(&[("tc", 3, 5, series.transpose().as_slice().to_vec())]);
    // Cut inside the variable's data: the parser used to stop there and find no variable.
    for cut in [whole.len() - 20, 128 + 30, 128 + 5, 100] {
        let path = dir.path().join("cut.mat");
        fs::write(&path, &whole[..cut]).expect("writes");
        let e = message(load_series(&path, TimeAxis::Auto));
        assert!(
            e.contains("cut.mat: not a readable MATLAB v5 .mat file (truncated or corrupt): "),
            "{e}"
        );
        assert!(!e.contains("no variable `tc`"), "{e}");
    }
    let path = dir.path().join("cut.mat");
    fs::write(&path, &whole[..whole.len() - 20]).expect("writes");
    let e = message(load_series(&path, TimeAxis::Auto));
    assert!(
        e.contains(&format!(
            "element 1 at byte 128 declares {} bytes, but the file ends {} bytes after its tag",
            whole.len() - 136,
            whole.len() - 156
        )),
        "{e}"
    );
    // The bundled real sample (one compressed variable), cut short.
    let real = fs::read(real_sample_dir().join("NAP_001.mat")).expect("reads");
    let path = dir.path().join("NAP_001.mat");
    fs::write(&path, &real[..real.len() / 2]).expect("writes");
    let e = message(load_series(&path, TimeAxis::Auto));
    assert!(e.contains("(truncated or corrupt)"), "{e}");
    // A readable file without a 2-D numeric variable is still reported as such.
    let path = dir.path().join("empty.mat");
    fs::write(&path, mat_v5(&[])).expect("writes");
    let e = message(load_series(&path, TimeAxis::Auto));
    assert!(
        e.contains("empty.mat: no variable `tc` and no 2-D numeric variable"),
        "{e}"
    );
    // The whole file still reads.
    let path = dir.path().join("whole.mat");
    fs::write(&path, &whole).expect("writes");
    assert_eq!(
        load_series(&path, TimeAxis::Columns).expect("loads").series,
        series
    );
}

#[test]
fn robust_a_constant_roi_in_a_loaded_folder_is_named() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut varying = roi_by_time();
    write(dir.path(), "a.csv", &csv_text(&varying.transpose()));
    for t in 0..5 {
        varying.set(1, t, 4.0);
    }
    write(dir.path(), "b.csv", &csv_text(&varying.transpose()));
    let e = message(load_folder(dir.path(), TimeAxis::Rows));
    assert!(
        e.contains(
            "subject b: ROI 2 is constant over time (zero variance): its correlation is undefined"
        ),
        "{e}"
    );
}
