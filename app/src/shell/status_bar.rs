//! The status bar: compute backend, running jobs with progress and cancel, and short messages
//! that go away by themselves (what Undo did).

use std::time::{Duration, Instant};

use super::BenchtopApp;

/// How long a short message stays in the status bar.
const TOAST_FOR: Duration = Duration::from_secs(4);

/// A short message in the status bar until `until`.
pub(super) struct Toast {
    text: String,
    until: Instant,
}

impl BenchtopApp {
    /// Shows `text` in the status bar for a few seconds.
    pub fn show_toast(&mut self, text: impl Into<String>) {
        self.toast = Some(Toast {
            text: text.into(),
            until: Instant::now() + TOAST_FOR,
        });
    }

    /// The message shown in the status bar now, if any.
    pub fn toast(&self) -> Option<&str> {
        self.toast.as_ref().map(|t| t.text.as_str())
    }

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
                // The time left first, so that a narrow bar never cuts it; the job's name is
                // on its cancel button.
                let eta = job
                    .time_left()
                    .map(|text| format!("{text}, "))
                    .unwrap_or_default();
                let fraction = job.progress.fraction() as f32;
                ui.add(
                    egui::ProgressBar::new(fraction)
                        .desired_width(150.0)
                        .text(format!("{eta}{:.0}%", 100.0 * fraction)),
                )
                .on_hover_text(format!("{}: {}", job.name, job.progress.message()));
                if ui.small_button(format!("Cancel {}", job.name)).clicked() {
                    job.cancel.cancel();
                }
            }
            ui.with_layout(egui::Layout::right_to_left(egui::Align::Center), |ui| {
                if self.is_dirty() {
                    ui.label("Unsaved changes");
                }
                self.toast_ui(ui);
                if benchtop_kit::figure::figure_hovered(ui.ctx()) {
                    ui.weak(benchtop_kit::figure::ZOOM_HINT);
                }
            });
        });
    }

    /// The short message, while it lasts; the window wakes once more to take it away.
    fn toast_ui(&mut self, ui: &mut egui::Ui) {
        let Some(toast) = &self.toast else {
            return;
        };
        let left = toast.until.saturating_duration_since(Instant::now());
        if left.is_zero() {
            self.toast = None;
            return;
        }
        ui.label(egui::RichText::new(&toast.text).strong());
        ui.separator();
        ui.ctx().request_repaint_after(left);
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
