//! The status bar: compute backend and running jobs with progress and cancel.

use super::BenchtopApp;

impl BenchtopApp {
    pub(super) fn status_bar(&mut self, ui: &mut egui::Ui) {
        ui.horizontal(|ui| {
            let backend = match &self.backend {
                Some(report) => report.headline(),
                None => "probing compute backends…".to_owned(),
            };
            ui.label(format!("Compute: {backend}"))
                .on_hover_text(self.backend_details());
            ui.separator();
            let running = self.jobs.running();
            if running.is_empty() {
                ui.label("Idle");
            }
            for job in running {
                let eta = job
                    .eta()
                    .map(|d| format!(", {:.0} s left", d.as_secs_f64()))
                    .unwrap_or_default();
                #[allow(clippy::cast_possible_truncation)]
                let fraction = job.progress.fraction() as f32;
                ui.add(
                    egui::ProgressBar::new(fraction)
                        .desired_width(140.0)
                        .text(format!("{} {:.0}%{eta}", job.name, 100.0 * fraction)),
                )
                .on_hover_text(job.progress.message());
                if ui.small_button(format!("Cancel {}", job.name)).clicked() {
                    job.cancel.cancel();
                }
            }
            ui.with_layout(egui::Layout::right_to_left(egui::Align::Center), |ui| {
                if self.is_dirty() {
                    ui.label("Unsaved changes");
                }
            });
        });
    }

    fn backend_details(&self) -> String {
        let Some(report) = &self.backend else {
            return String::new();
        };
        let show = |r: &Result<String, String>| r.clone().unwrap_or_else(|e| format!("none ({e})"));
        format!(
            "wgpu: {}\nCUDA: {}\nNVRTC: {}\n{}\nCPU threads: {}{}",
            show(&report.wgpu),
            show(&report.cuda),
            if report.nvrtc { "found" } else { "not found" },
            report.candle,
            report.cpu_threads,
            if self.shared_gpu {
                "\nEngines share the window's GPU device"
            } else {
                ""
            }
        )
    }
}
