//! One session of one task as a state machine: [`Session::turn`] shows the current trial (the
//! message the paper's subject reads, the options, the hidden truth only an oracle may use) and
//! [`Session::submit`] applies an answer. Scripted agents, the language-model agent and a person
//! at the panel all play through this one loop, so one scorer scores them all.
//!
//! Every trial draws the same number of environment random numbers whatever the answer, so two
//! agents with the same seed face the same outcomes (common random numbers).

use benchtop_compute::rng::{EngineRng, seeded};
use rand::Rng as _;
use serde::{Deserialize, Serialize};

use crate::data::{self, Card, DECKS, DESK, RULES, Stimuli};
use crate::task::{Settings, Task};
use crate::tfidf;

/// What the trial shows, in structured form (the message carries the same in words).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum Stimulus {
    /// Oddball: a paragraph to comment on.
    Paragraph(String),
    /// n-back: the current letter.
    Letter(char),
    /// A two-arm bandit trial (reversal, meta-bandit).
    Arms,
    /// WCST: the test card.
    Card(Card),
    /// Weather: today's weather (0 sunny, 1 rainy) and whether device 1 is active.
    Weather {
        /// 0 sunny, 1 rainy.
        today: usize,
        /// `true` for `[1, 0]`.
        device1: bool,
    },
    /// Iowa, first pick of the trial; `money` is the account.
    IowaFirst {
        /// The account before this trial.
        money: i64,
    },
    /// Iowa, final pick after seeing what the first pick would give.
    IowaSecond {
        /// The first pick (deck index).
        first: usize,
        /// Its gain.
        gain: i64,
        /// Its loss (0 when none).
        loss: i64,
    },
}

/// The outcome of the previous trial, as the next message reports it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum Feedback {
    /// First trial (or a task without feedback).
    None,
    /// Bandit reward, 0 or 1.
    Reward(u8),
    /// Right or wrong (n-back, WCST).
    Correct(bool),
    /// Weather: what was predicted and what came (0 sunny, 1 rainy).
    Weather {
        /// The prediction, if one was understood.
        predicted: Option<usize>,
        /// The actual weather.
        actual: usize,
    },
    /// Iowa: the final pick's outcome.
    Iowa {
        /// Gain.
        gain: i64,
        /// Loss.
        loss: i64,
    },
}

/// The hidden truth of a trial: what an oracle may read and the trace shows.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Hidden {
    /// The best option, where one exists (None: WCST number 3, oddball).
    pub best: Option<usize>,
    /// A number to plot: P(reward | right arm), the rule index, P(sunny tomorrow), the
    /// off-topic sentence index, …
    pub value: f64,
    /// The same in words (`p(right) = 0.8`, `rule: color`, …).
    pub label: String,
}

/// One trial as shown to an agent.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Turn {
    /// The task.
    pub task: Task,
    /// Trial index (0-based).
    pub trial: usize,
    /// Trials in the session.
    pub trials: usize,
    /// The structured stimulus.
    pub stimulus: Stimulus,
    /// The previous outcome.
    pub feedback: Feedback,
    /// The user message, in the paper's wording.
    pub message: String,
    /// The options (empty for oddball: the answer is free text).
    pub options: Vec<String>,
    /// The hidden truth (for oracles and traces only).
    pub hidden: Hidden,
}

/// An agent's answer to a turn.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Answer {
    /// The chosen option, None when no option could be extracted.
    pub choice: Option<usize>,
    /// The reply text (the oddball comment; a language model's raw reply).
    pub text: String,
    /// The agent's belief where it has one (P(right arm is better), P(rule), …).
    pub belief: Option<f64>,
}

impl Answer {
    /// An answer choosing option `i`.
    pub fn pick(i: usize) -> Self {
        Self {
            choice: Some(i),
            ..Self::default()
        }
    }

    /// A free-text answer.
    pub fn say(text: impl Into<String>) -> Self {
        Self {
            text: text.into(),
            ..Self::default()
        }
    }

    /// Adds a belief.
    pub fn with_belief(mut self, belief: f64) -> Self {
        self.belief = Some(belief);
        self
    }
}

/// Task-specific record of a trial (what the scorers read).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum Detail {
    /// Oddball.
    Oddball {
        /// The reply.
        reply: String,
        /// Max TF-IDF cosine of its sentences to the surprise sentence.
        similarity: f64,
    },
    /// n-back.
    NBack {
        /// The letter shown.
        letter: char,
        /// The correct option (0 yes, 1 no, 2 not available).
        answer: usize,
        /// Whether the choice was it.
        correct: bool,
    },
    /// Probabilistic reversal.
    Reversal {
        /// P(reward | right arm) this trial.
        p_right: f64,
    },
    /// WCST.
    Wcst {
        /// The rule index (0 shape, 1 colour, 2 number).
        rule: usize,
        /// The test card.
        card: Card,
        /// Whether the choice matched under the rule.
        correct: bool,
    },
    /// Weather.
    Weather {
        /// Today (0 sunny, 1 rainy).
        today: usize,
        /// Device 1 active.
        device1: bool,
        /// The prediction, None if not understood.
        prediction: Option<usize>,
        /// Tomorrow's actual weather.
        tomorrow: usize,
    },
    /// Iowa.
    Iowa {
        /// First pick.
        first: Option<usize>,
        /// Its gain.
        gain1: i64,
        /// Its loss.
        loss1: i64,
        /// Final pick.
        second: Option<usize>,
        /// Final gain.
        gain: i64,
        /// Final loss.
        loss: i64,
        /// Account after the trial.
        money: i64,
    },
    /// Meta-bandit.
    Meta {
        /// Whether the rewarded arm reversed this trial.
        reverse: bool,
    },
}

/// One finished trial in a session's trace.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TrialRecord {
    /// Trial index (0-based).
    pub trial: usize,
    /// The (final) choice.
    pub choice: Option<usize>,
    /// The choice in words (the option label, or the reply for oddball).
    pub label: String,
    /// Reward: bandit reward, 1/0 for correct, the Iowa final net, the oddball similarity.
    pub reward: f64,
    /// The hidden value (see [`Hidden::value`]).
    pub hidden: f64,
    /// The hidden value in words.
    pub hidden_label: String,
    /// The agent's belief, where it has one.
    pub belief: Option<f64>,
    /// What the scorer reads.
    pub detail: Detail,
}

/// The options of a task, as labels.
pub fn options(task: Task) -> Vec<String> {
    let v: Vec<String> = match task {
        Task::Oddball => Vec::new(),
        Task::NBack => ["Yes", "No", "Not available"].map(String::from).to_vec(),
        Task::Reversal | Task::MetaBandit => ["right arm", "left arm"].map(String::from).to_vec(),
        Task::Wcst => DESK.iter().map(|c| c.name()).collect(),
        Task::Weather => ["sunny", "rainy"].map(String::from).to_vec(),
        Task::Iowa => DECKS.iter().map(|d| d.name.to_owned()).collect(),
    };
    v
}

const WEATHER: [&str; 2] = ["sunny", "rainy"];

fn device_text(device1: bool) -> &'static str {
    if device1 { "[1, 0]" } else { "[0, 1]" }
}

/// One session of one task.
#[derive(Clone, Debug)]
pub struct Session {
    task: Task,
    settings: Settings,
    stimuli: Stimuli,
    rng: EngineRng,
    trial: usize,
    feedback: Feedback,
    records: Vec<TrialRecord>,
    /// Meta-bandit: whether the right arm is the rewarded one now.
    meta_right: bool,
    /// Weather: today's weather.
    today: usize,
    /// Iowa: account, and the first pick waiting for its final pick.
    money: i64,
    iowa_first: Option<(Option<usize>, i64, i64)>,
}

impl Session {
    /// A session of `task` with environment seed `seed`. The settings must be valid
    /// ([`Settings::validate`]).
    pub fn new(task: Task, settings: &Settings, seed: u64) -> Self {
        Self {
            task,
            settings: settings.clone(),
            stimuli: Stimuli::new(settings),
            rng: seeded(seed),
            trial: 0,
            feedback: Feedback::None,
            records: Vec::new(),
            meta_right: true,
            today: 0,
            money: settings.iowa.start_money,
            iowa_first: None,
        }
    }

    /// The task.
    pub fn task(&self) -> Task {
        self.task
    }

    /// Trials in the session.
    pub fn trials(&self) -> usize {
        self.settings.trials(self.task)
    }

    /// Whether every trial has been answered.
    pub fn done(&self) -> bool {
        self.trial >= self.trials()
    }

    /// The finished trials.
    pub fn records(&self) -> &[TrialRecord] {
        &self.records
    }

    /// The session's score by the task's scorer (on the trials played so far).
    pub fn score(&self) -> f64 {
        crate::score::score(self.task, &self.settings, &self.records)
    }

    fn reversal_p_right(&self, i: usize) -> f64 {
        let p = self.settings.reversal.p;
        if i < self.settings.reversal.trials / 2 {
            p
        } else {
            1.0 - p
        }
    }

    fn meta_right_at(&self, i: usize) -> bool {
        if self.settings.meta.is_reversal(i) {
            !self.meta_right
        } else {
            self.meta_right
        }
    }

    fn p_sunny_tomorrow(&self, today: usize, device1: bool) -> f64 {
        let q = self.settings.weather.persist;
        let stay = if device1 { q } else { 1.0 - q };
        if today == 0 { stay } else { 1.0 - stay }
    }

    /// The current trial, or None when the session is over.
    pub fn turn(&self) -> Option<Turn> {
        if self.done() {
            return None;
        }
        let i = self.trial;
        let n = i + 1;
        let opts = options(self.task);
        let (stimulus, message, hidden) = match self.task {
            Task::Oddball => {
                let (text, odd) = data::ODDBALL_PARAGRAPHS[i];
                let text = text.split_whitespace().collect::<Vec<_>>().join(" ");
                let hidden = Hidden {
                    best: None,
                    value: odd as f64,
                    label: format!("off-topic sentence {}", odd + 1),
                };
                (Stimulus::Paragraph(text.clone()), text, hidden)
            }
            Task::NBack => {
                let c = self.stimuli.letters[i];
                let best = self.nback_answer(i);
                let msg = match &self.feedback {
                    Feedback::Correct(ok) => format!(
                        "Your answer is {ok}. Current character is: {c}, make your decision."
                    ),
                    _ => format!("Current character is: {c}, make your decision."),
                };
                let hidden = Hidden {
                    best: Some(best),
                    value: best as f64,
                    label: opts[best].clone(),
                };
                (Stimulus::Letter(c), msg, hidden)
            }
            Task::Reversal | Task::MetaBandit => {
                let p = if self.task == Task::Reversal {
                    self.reversal_p_right(i)
                } else if self.meta_right_at(i) {
                    1.0
                } else {
                    0.0
                };
                let msg = match &self.feedback {
                    Feedback::Reward(r) => format!(
                        "Your previous choice resulted in a reward of {r}. This is trial number \
                         {n}. Please choose the option you think is best."
                    ),
                    _ => "This is the first trial, choose one arm please.".to_owned(),
                };
                let best = if p >= 0.5 { 0 } else { 1 };
                let hidden = Hidden {
                    best: Some(best),
                    value: p,
                    label: format!("p(right) = {p:.2}"),
                };
                (Stimulus::Arms, msg, hidden)
            }
            Task::Wcst => {
                let card = self.stimuli.cards[i];
                let rule = self.wcst_rule(i);
                let msg = match &self.feedback {
                    Feedback::Correct(ok) => format!(
                        "Your last choice was {ok}. This is trial number {n}, your testing card \
                         is {}.",
                        card.name()
                    ),
                    _ => format!(
                        "This is the first trial, the testing card is {}.",
                        card.name()
                    ),
                };
                let best = DESK.iter().position(|d| d.matches(card, rule));
                let hidden = Hidden {
                    best,
                    value: rule as f64,
                    label: format!("rule: {}", RULES[rule]),
                };
                (Stimulus::Card(card), msg, hidden)
            }
            Task::Weather => {
                let device1 = self.stimuli.devices[i];
                let today = self.today;
                let msg = match &self.feedback {
                    Feedback::Weather { predicted, actual } => format!(
                        "This is the next day now, your prediction on today's weather was {}, and \
                         today's actual weather is {}. Today, the state of devices is {}, now make \
                         your prediction according to today's weather and the state of devices \
                         (just predict sunny or rainy).",
                        predicted.map_or("not available", |p| WEATHER[p]),
                        WEATHER[*actual],
                        device_text(device1)
                    ),
                    _ => format!(
                        "This is the first day of your work. Today's weather is {}, and the state \
                         of devices is {}. Now make your prediction on tomorrow's weather (just \
                         predict sunny or rainy).",
                        WEATHER[today],
                        device_text(device1)
                    ),
                };
                let p = self.p_sunny_tomorrow(today, device1);
                let hidden = Hidden {
                    best: Some(if p >= 0.5 { 0 } else { 1 }),
                    value: p,
                    label: format!("p(sunny tomorrow) = {p:.2}"),
                };
                (Stimulus::Weather { today, device1 }, msg, hidden)
            }
            Task::Iowa => {
                let best = Some(3);
                let hidden = Hidden {
                    best,
                    value: 30.0,
                    label: "best deck DDD (EV +30)".into(),
                };
                match self.iowa_first {
                    None => {
                        let money = self.money;
                        let msg = match &self.feedback {
                            Feedback::Iowa { gain, loss } => format!(
                                "The outcome of your last choice is gain: ${gain}, loss: ${loss}. \
                                 The current money in your account is ${money}. This is trial \
                                 number {n}, make your choice!"
                            ),
                            _ => format!(
                                "The current money in your account is ${money}. This is trial \
                                 number {n}, make your choice!"
                            ),
                        };
                        (Stimulus::IowaFirst { money }, msg, hidden)
                    }
                    Some((first, gain, loss)) => {
                        let after = self.money + gain - loss;
                        let msg = format!(
                            "If you choose this deck, the outcome will be gain: ${gain}, loss: \
                             ${loss}, and the money in your account will be ${after}. Which deck \
                             would you choose? Make your final choice!"
                        );
                        let first = first.unwrap_or(usize::MAX);
                        (Stimulus::IowaSecond { first, gain, loss }, msg, hidden)
                    }
                }
            }
        };
        Some(Turn {
            task: self.task,
            trial: i,
            trials: self.trials(),
            stimulus,
            feedback: self.feedback.clone(),
            message,
            options: opts,
            hidden,
        })
    }

    fn nback_answer(&self, i: usize) -> usize {
        let n = self.settings.nback.n;
        if i < n {
            2
        } else if self.stimuli.letters[i] == self.stimuli.letters[i - n] {
            0
        } else {
            1
        }
    }

    fn wcst_rule(&self, i: usize) -> usize {
        (i / self.settings.wcst.rule_interval) % 3
    }

    fn label_of(&self, choice: Option<usize>) -> String {
        let opts = options(self.task);
        choice
            .and_then(|c| opts.get(c).cloned())
            .unwrap_or_else(|| "(no answer)".to_owned())
    }

    /// Applies an answer to the current trial. A choice outside the options counts as no
    /// answer (scored as the paper's failed extraction). Does nothing once the session is over.
    pub fn submit(&mut self, answer: &Answer) {
        let Some(turn) = self.turn() else { return };
        let i = self.trial;
        let n_opts = turn.options.len();
        let choice = answer.choice.filter(|&c| c < n_opts);
        let hidden = turn.hidden;
        let mut record = TrialRecord {
            trial: i,
            choice,
            label: self.label_of(choice),
            reward: 0.0,
            hidden: hidden.value,
            hidden_label: hidden.label.clone(),
            belief: answer.belief,
            detail: Detail::Meta { reverse: false },
        };
        match self.task {
            Task::Oddball => {
                let similarity = tfidf::surprise_similarity(&answer.text);
                record.label = answer.text.clone();
                record.reward = similarity;
                record.detail = Detail::Oddball {
                    reply: answer.text.clone(),
                    similarity,
                };
                self.feedback = Feedback::None;
            }
            Task::NBack => {
                let best = hidden.best.unwrap_or(2);
                let correct = choice == Some(best);
                record.reward = f64::from(u8::from(correct));
                record.detail = Detail::NBack {
                    letter: self.stimuli.letters[i],
                    answer: best,
                    correct,
                };
                self.feedback = Feedback::Correct(correct);
            }
            Task::Reversal => {
                let u: f64 = self.rng.random();
                let p_right = hidden.value;
                let p = match choice {
                    Some(0) => p_right,
                    Some(_) => 1.0 - p_right,
                    None => 0.0,
                };
                let r = u8::from(u < p);
                record.reward = f64::from(r);
                record.detail = Detail::Reversal { p_right };
                self.feedback = Feedback::Reward(r);
            }
            Task::MetaBandit => {
                let _: f64 = self.rng.random();
                let reverse = self.settings.meta.is_reversal(i);
                self.meta_right = self.meta_right_at(i);
                let rewarded = if self.meta_right { 0 } else { 1 };
                let r = u8::from(choice == Some(rewarded));
                record.reward = f64::from(r);
                record.detail = Detail::Meta { reverse };
                self.feedback = Feedback::Reward(r);
            }
            Task::Wcst => {
                let card = self.stimuli.cards[i];
                let rule = self.wcst_rule(i);
                let correct = choice.is_some_and(|c| DESK[c].matches(card, rule));
                record.reward = f64::from(u8::from(correct));
                record.detail = Detail::Wcst {
                    rule,
                    card,
                    correct,
                };
                self.feedback = Feedback::Correct(correct);
            }
            Task::Weather => {
                let u: f64 = self.rng.random();
                let device1 = self.stimuli.devices[i];
                let today = self.today;
                let tomorrow = usize::from(u >= hidden.value);
                record.reward = f64::from(u8::from(choice == Some(tomorrow)));
                record.detail = Detail::Weather {
                    today,
                    device1,
                    prediction: choice,
                    tomorrow,
                };
                self.feedback = Feedback::Weather {
                    predicted: choice,
                    actual: tomorrow,
                };
                self.today = tomorrow;
            }
            Task::Iowa => {
                let u: f64 = self.rng.random();
                let (gain, loss) = match choice {
                    Some(d) => {
                        let deck = DECKS[d];
                        (deck.gain, if u < deck.p_loss { deck.loss } else { 0 })
                    }
                    None => (0, 0),
                };
                match self.iowa_first.take() {
                    None => {
                        self.iowa_first = Some((choice, gain, loss));
                        // The first pick is not a trial of its own: no record yet.
                        return;
                    }
                    Some((first, gain1, loss1)) => {
                        self.money += gain - loss;
                        record.reward = (gain - loss) as f64;
                        record.label =
                            format!("{} → {}", self.label_of(first), self.label_of(choice));
                        record.detail = Detail::Iowa {
                            first,
                            gain1,
                            loss1,
                            second: choice,
                            gain,
                            loss,
                            money: self.money,
                        };
                        self.feedback = Feedback::Iowa { gain, loss };
                    }
                }
            }
        }
        self.records.push(record);
        self.trial += 1;
    }
}
