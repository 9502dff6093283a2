//! Panel figure pieces with a rule of their own: named matrix axes (the linear network's CSV
//! items, NeuroTree's ROIs with ROI 0 at the top).

use benchtop_kit::figure::{ExportOptions, Figure, Subplot, render_svg};

#[test]
fn connectivity_rows_are_labelled_by_roi_with_roi_0_at_the_top() {
    let n = 30;
    let names = benchtop_panel_neurotree::figures::roi_row_names(n);
    assert_eq!(names.len(), n);
    // Height k shows row n − 1 − k: ROI 0 at the top (height n − 1), steps of 5.
    assert_eq!(names[n - 1], "0");
    assert_eq!(names[n - 1 - 5], "5");
    assert_eq!(names[0], "", "ROI 29 is not a multiple of the step 5");
    let labelled = names.iter().filter(|name| !name.is_empty()).count();
    assert!((3..=8).contains(&labelled), "{labelled} rows labelled");
    let figure = Figure::new("FC").subplot(
        Subplot::new("")
            .y_range(-0.5, n as f64 - 0.5)
            .y_tick_names(0.0, names)
            .line("diagonal", vec![0.0, 29.0], vec![29.0, 0.0]),
    );
    let svg = render_svg(&figure, &ExportOptions::default()).expect("svg");
    for roi in ["0", "5", "25"] {
        assert!(svg.contains(&format!("\n{roi}\n")), "ROI {roi} is labelled");
    }
}

#[test]
fn a_csvs_item_names_label_the_linear_network_matrices_and_generated_ones_do_not() {
    use benchtop_panel_linnet::figures::name_items;
    let named: Vec<String> = ["canary", "salmon", "oak"].map(str::to_owned).to_vec();
    let subplot = name_items(Subplot::new("RSM"), &named, true, true);
    assert_eq!(
        subplot.x.tick_names.as_ref().map(|t| &t.names),
        Some(&named)
    );
    assert_eq!(subplot.y.tick_names.as_ref().map(|t| t.first), Some(1.0));
    let generated: Vec<String> = (1..=3).map(|i| format!("item {i}")).collect();
    let subplot = name_items(Subplot::new("RSM"), &generated, true, true);
    assert!(subplot.x.tick_names.is_none() && subplot.y.tick_names.is_none());
}
