//! Human play: a person answers the same turns an agent sees, with buttons (or a comment for
//! the oddball task), and is scored by the same scorer.

use benchtop_reflection::run::session_seed;
use benchtop_reflection::{Answer, Session, SessionResult, Task};

use crate::params::ReflectionParams;

/// The game in progress, if any, and the last finished score.
#[derive(Default)]
pub struct Game {
    session: Option<Session>,
    comment: String,
    last: Option<(Task, f64)>,
}

impl Game {
    /// Draws the play tab; returns a game when the person finishes it.
    pub fn ui(
        &mut self,
        ui: &mut egui::Ui,
        params: &ReflectionParams,
        play_task: &mut Task,
        games_played: usize,
    ) -> Option<SessionResult> {
        ui.horizontal(|ui| {
            egui::ComboBox::from_label("Task to play")
                .selected_text(play_task.label())
                .show_ui(ui, |ui| {
                    for t in Task::ALL {
                        ui.selectable_value(play_task, t, t.label());
                    }
                });
            if ui.button("Start a new game").clicked() {
                match params.settings.validate() {
                    Ok(()) => {
                        let seed =
                            session_seed(params.seed ^ 0x5eed, *play_task, 1000 + games_played);
                        self.session = Some(Session::new(*play_task, &params.settings, seed));
                        self.comment.clear();
                    }
                    Err(e) => {
                        self.session = None;
                        ui.colored_label(egui::Color32::RED, e);
                    }
                }
            }
        });
        if let Some((task, score)) = self.last {
            ui.label(format!("Your last game: {} scored {score:.2} (finished games appear as agent \"human\" in Scores and Trace).", task.label()));
        }
        let session = self.session.as_mut()?;
        let turn = session.turn()?;
        ui.separator();
        ui.label(format!(
            "{} — trial {} of {}",
            turn.task.label(),
            turn.trial + 1,
            turn.trials
        ));
        ui.label(egui::RichText::new(&turn.message).size(15.0));
        let mut answer = None;
        if turn.options.is_empty() {
            ui.add(
                egui::TextEdit::multiline(&mut self.comment)
                    .hint_text("Your comment on the paragraph"),
            );
            if ui.button("Send comment").clicked() {
                answer = Some(Answer::say(std::mem::take(&mut self.comment)));
            }
        } else {
            ui.horizontal_wrapped(|ui| {
                for (i, o) in turn.options.iter().enumerate() {
                    if ui.button(o).clicked() {
                        answer = Some(Answer::pick(i));
                    }
                }
            });
        }
        ui.label(format!("Score so far {:.2}", session.score()));
        let a = answer?;
        session.submit(&a);
        if !session.done() {
            return None;
        }
        let s = self.session.take()?;
        self.last = Some((s.task(), s.score()));
        Some(SessionResult {
            agent: "human".into(),
            task: s.task(),
            session: games_played,
            score: s.score(),
            records: s.records().to_vec(),
        })
    }
}
