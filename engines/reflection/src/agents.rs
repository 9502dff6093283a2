//! Seeded scripted agents: per-task oracle, random, win-stay-lose-shift, Q-learning (α, β), a
//! Bayesian learner (change-point belief on bandits, rule posterior on WCST, Beta counts
//! elsewhere) and a meta-bandit pattern detector. Each plays all seven tasks through
//! [`Agent::answer`]; where a strategy has no natural meaning on a task the fallback is named in
//! the variant's doc.

use benchtop_compute::rng::{EngineRng, seeded};
use rand::Rng as _;
use serde::{Deserialize, Serialize};

use crate::data::{Card, DESK, split_sentences};
use crate::session::{Answer, Feedback, Stimulus, Turn};
use crate::task::{Settings, Task};

/// Something that answers turns: a scripted agent or the language-model agent.
pub trait Agent: Send {
    /// Name for tables and summary.json.
    fn name(&self) -> String;
    /// Starts a new session of `task` (session index `session`); clears per-session state.
    fn begin(&mut self, task: Task, settings: &Settings, session: usize) -> Result<(), String>;
    /// Answers one turn.
    fn answer(&mut self, turn: &Turn) -> Result<Answer, String>;
}

/// Which scripted strategy.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum Scripted {
    /// Reads the hidden truth: the better arm, the rule, the n-back answer, the off-topic
    /// sentence; samples weather predictions from the true matrix (what the scorer rewards);
    /// Iowa: DDD, switching to CCC after a shown loss.
    Oracle,
    /// Uniform choices; oddball: echoes a random sentence.
    Random,
    /// Win-stay-lose-shift: on arms and decks; on WCST over rule hypotheses; on n-back and
    /// weather over answers.
    Wsls,
    /// Softmax Q-learning with learning rate α and inverse temperature β (states: n-back
    /// match/non-match, weather (device, today); WCST values the three rules).
    QLearning {
        /// Learning rate α.
        alpha: f64,
        /// Inverse temperature β.
        beta: f64,
    },
    /// Bayesian: a two-state change-point belief with hazard h on the bandits, a rule posterior
    /// with hazard h on WCST, Beta counts with Thompson sampling on weather, posterior means on
    /// n-back and Iowa.
    Bayesian {
        /// Hazard rate h (probability per trial that the hidden state changes).
        hazard: f64,
    },
    /// Meta-bandit pattern detector: learns the reversal period from the gaps between observed
    /// reversals and switches in anticipation; with `period` set it switches every `period`
    /// trials from the start ("switch every 2"). Other tasks: win-stay-lose-shift.
    Pattern {
        /// A fixed period, or None to learn it.
        period: Option<usize>,
    },
}

impl Scripted {
    /// The default agents of the panel and project: oracle, random, WSLS, Q-learning, Bayesian
    /// and the learning pattern detector.
    pub fn defaults() -> Vec<Self> {
        vec![
            Self::Oracle,
            Self::Random,
            Self::Wsls,
            Self::QLearning {
                alpha: 0.3,
                beta: 5.0,
            },
            Self::Bayesian { hazard: 0.05 },
            Self::Pattern { period: None },
        ]
    }

    /// Name: `oracle`, `random`, `wsls`, `q_learning`, `bayesian`, `pattern`, `pattern_2`.
    pub fn name(&self) -> String {
        match self {
            Self::Oracle => "oracle".into(),
            Self::Random => "random".into(),
            Self::Wsls => "wsls".into(),
            Self::QLearning { .. } => "q_learning".into(),
            Self::Bayesian { .. } => "bayesian".into(),
            Self::Pattern { period: None } => "pattern".into(),
            Self::Pattern { period: Some(k) } => format!("pattern_{k}"),
        }
    }

    /// The agent for a name (see [`Scripted::name`]; `switch_every_K` also means `pattern_K`),
    /// with the default parameters.
    pub fn from_name(name: &str) -> Option<Self> {
        let n = name.trim().to_ascii_lowercase().replace('-', "_");
        let fixed = n
            .strip_prefix("pattern_")
            .or_else(|| n.strip_prefix("switch_every_"));
        if let Some(k) = fixed
            .and_then(|k| k.parse::<usize>().ok())
            .filter(|&k| k > 0)
        {
            return Some(Self::Pattern { period: Some(k) });
        }
        Self::defaults()
            .into_iter()
            .find(|a| a.name() == n)
            .or(match n.as_str() {
                "wsls" | "win_stay_lose_shift" => Some(Self::Wsls),
                "q" | "ql" | "qlearning" => Some(Self::QLearning {
                    alpha: 0.3,
                    beta: 5.0,
                }),
                "bayes" => Some(Self::Bayesian { hazard: 0.05 }),
                _ => None,
            })
    }
}

/// A scripted agent with its random stream and per-session memory.
#[derive(Clone, Debug)]
pub struct ScriptedAgent {
    kind: Scripted,
    seed: u64,
    rng: EngineRng,
    task: Task,
    settings: Settings,
    mem: Memory,
}

/// Per-session memory (cleared by `begin`).
#[derive(Clone, Debug, Default)]
struct Memory {
    last_choice: Option<usize>,
    /// The previous trial's state index (Q-learning / Bayesian tables).
    last_state: usize,
    /// n-back letters seen.
    letters: Vec<char>,
    /// Value or count tables: `table[state][action]`.
    q: Vec<Vec<f64>>,
    /// Second table (Bayesian failures, Iowa counts).
    n: Vec<Vec<f64>>,
    /// Bandit belief P(right arm is the good one); WCST rule posterior.
    belief: Vec<f64>,
    /// WSLS on WCST: the current rule hypothesis.
    rule: usize,
    /// Pattern detector: last reversal trial and the learnt period.
    last_rev: Option<usize>,
    period: Option<usize>,
    /// Iowa: the first pick of the current trial.
    iowa_first: Option<usize>,
    /// WCST: the previous test card.
    last_card: Option<Card>,
}

impl ScriptedAgent {
    /// A scripted agent; `seed` drives its own random choices (not the environment's).
    pub fn new(kind: Scripted, seed: u64) -> Self {
        Self {
            kind,
            seed,
            rng: seeded(seed),
            task: Task::Oddball,
            settings: Settings::default(),
            mem: Memory::default(),
        }
    }

    fn uniform(&mut self, n: usize) -> usize {
        self.rng.random_range(0..n)
    }

    fn softmax(&mut self, values: &[f64], beta: f64) -> usize {
        let m = values.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        let w: Vec<f64> = values.iter().map(|v| ((v - m) * beta).exp()).collect();
        let total: f64 = w.iter().sum();
        let mut u = self.rng.random::<f64>() * total;
        for (i, wi) in w.iter().enumerate() {
            if u < *wi {
                return i;
            }
            u -= wi;
        }
        values.len() - 1
    }

    /// Argmax with uniform tie-breaking.
    fn argmax(&mut self, values: &[f64]) -> usize {
        let m = values.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        let best: Vec<usize> = (0..values.len())
            .filter(|&i| values[i] >= m - 1e-12)
            .collect();
        best[self.rng.random_range(0..best.len())]
    }

    fn table(&mut self, states: usize, actions: usize) {
        self.mem.q = vec![vec![0.0; actions]; states];
        self.mem.n = vec![vec![0.0; actions]; states];
    }

    fn oddball(&mut self, turn: &Turn) -> Answer {
        let Stimulus::Paragraph(text) = &turn.stimulus else {
            return Answer::default();
        };
        let sentences = split_sentences(text);
        match self.kind {
            Scripted::Oracle => {
                let odd = sentences
                    .get(turn.hidden.value as usize)
                    .cloned()
                    .unwrap_or_default();
                Answer::say(format!(
                    "Wait, what? \"{odd}\" is a totally unexpected shift that does not make sense \
                     here. It is not related to the context and completely confusing."
                ))
            }
            Scripted::Random => {
                let i = self.uniform(sentences.len().max(1));
                Answer::say(format!(
                    "I noted this: {}",
                    sentences.get(i).cloned().unwrap_or_default()
                ))
            }
            _ => Answer::say(format!(
                "A nice paragraph. {}",
                sentences.first().cloned().unwrap_or_default()
            )),
        }
    }

    fn nback(&mut self, turn: &Turn) -> Answer {
        let Stimulus::Letter(c) = turn.stimulus else {
            return Answer::default();
        };
        let n = self.settings.nback.n;
        let k = self.mem.letters.len();
        let state = if k < n {
            2
        } else if self.mem.letters[k - n] == c {
            0
        } else {
            1
        };
        let reward = match turn.feedback {
            Feedback::Correct(ok) => Some(f64::from(u8::from(ok))),
            _ => None,
        };
        self.learn_table(reward);
        self.mem.letters.push(c);
        let choice = match self.kind {
            Scripted::Oracle => state,
            Scripted::Random => self.uniform(3),
            Scripted::Wsls | Scripted::Pattern { .. } => self.wsls_answer(reward, 3),
            Scripted::QLearning { beta, .. } => {
                let q = self.mem.q[state].clone();
                self.softmax(&q, beta)
            }
            Scripted::Bayesian { .. } => {
                let means = self.beta_means(state);
                self.argmax(&means)
            }
        };
        self.mem.last_state = state;
        self.mem.last_choice = Some(choice);
        Answer::pick(choice)
    }

    /// Posterior means of Beta(1, 1) success counts per action in `state`.
    fn beta_means(&self, state: usize) -> Vec<f64> {
        self.mem.q[state]
            .iter()
            .zip(&self.mem.n[state])
            .map(|(s, f)| (1.0 + s) / (2.0 + s + f))
            .collect()
    }

    /// Updates the (state, action) table of the previous trial with `reward` in [0, 1].
    fn learn_table(&mut self, reward: Option<f64>) {
        let (Some(r), Some(a)) = (reward, self.mem.last_choice) else {
            return;
        };
        let s = self.mem.last_state;
        match self.kind {
            Scripted::QLearning { alpha, .. } => {
                let q = &mut self.mem.q[s][a];
                *q += alpha * (r - *q);
            }
            Scripted::Bayesian { .. } => {
                self.mem.q[s][a] += r;
                self.mem.n[s][a] += 1.0 - r;
            }
            _ => {}
        }
    }

    fn wsls_answer(&mut self, reward: Option<f64>, options: usize) -> usize {
        match (self.mem.last_choice, reward) {
            (Some(c), Some(r)) if r > 0.0 => c,
            (Some(c), Some(_)) => (c + 1) % options,
            _ => self.uniform(options),
        }
    }

    fn bandit(&mut self, turn: &Turn) -> Answer {
        let reward = match turn.feedback {
            Feedback::Reward(r) => Some(f64::from(r)),
            _ => None,
        };
        let t = turn.trial;
        if t == 0 {
            self.mem.belief = vec![0.5];
        }
        let p_good = if turn.task == Task::Reversal {
            self.settings.reversal.p.max(1.0 - self.settings.reversal.p)
        } else {
            0.99
        };
        let mut belief = None;
        let choice = match self.kind.clone() {
            Scripted::Oracle => {
                belief = Some(turn.hidden.value);
                turn.hidden.best.unwrap_or(0)
            }
            Scripted::Random => self.uniform(2),
            Scripted::Wsls => self.wsls_answer(reward, 2),
            Scripted::QLearning { alpha, beta } => {
                if t == 0 {
                    self.table(1, 2);
                }
                if let (Some(r), Some(a)) = (reward, self.mem.last_choice) {
                    self.mem.q[0][a] += alpha * (r - self.mem.q[0][a]);
                }
                let q = self.mem.q[0].clone();
                belief = Some(1.0 / (1.0 + (beta * (q[1] - q[0])).exp()));
                self.softmax(&q, beta)
            }
            Scripted::Bayesian { hazard } => {
                let mut b = self.mem.belief[0];
                if let (Some(r), Some(a)) = (reward, self.mem.last_choice) {
                    // P(reward | right good) for the arm chosen.
                    let p_if_right_good = if a == 0 { p_good } else { 1.0 - p_good };
                    let like_rg = if r > 0.0 {
                        p_if_right_good
                    } else {
                        1.0 - p_if_right_good
                    };
                    let like_lg = if r > 0.0 {
                        1.0 - p_if_right_good
                    } else {
                        p_if_right_good
                    };
                    b = b * like_rg / (b * like_rg + (1.0 - b) * like_lg);
                }
                // The hidden state may change before the next trial.
                b = b * (1.0 - hazard) + (1.0 - b) * hazard;
                self.mem.belief[0] = b;
                belief = Some(b);
                if (b - 0.5).abs() < 1e-12 {
                    self.uniform(2)
                } else if b > 0.5 {
                    0
                } else {
                    1
                }
            }
            Scripted::Pattern { period } => {
                let c = self.pattern_choice(t, reward, period);
                belief = Some(if c == 0 { 1.0 } else { 0.0 });
                c
            }
        };
        self.mem.last_choice = Some(choice);
        let mut a = Answer::pick(choice);
        a.belief = belief;
        a
    }

    /// The pattern detector's arm at trial `t`.
    fn pattern_choice(&mut self, t: usize, reward: Option<f64>, period: Option<usize>) -> usize {
        if let Some(k) = period {
            return (t / k) % 2;
        }
        let Some(last) = self.mem.last_choice else {
            return 0;
        };
        if reward == Some(0.0) {
            // The arm reversed at t − 1: learn the gap, switch.
            let rev = t - 1;
            if let Some(prev) = self.mem.last_rev {
                self.mem.period = Some(rev - prev);
            }
            self.mem.last_rev = Some(rev);
            return 1 - last;
        }
        match (self.mem.period, self.mem.last_rev) {
            (Some(k), Some(prev)) if t == prev + k => {
                // Anticipate the reversal.
                self.mem.last_rev = Some(t);
                1 - last
            }
            _ => last,
        }
    }

    fn wcst(&mut self, turn: &Turn) -> Answer {
        let Stimulus::Card(card) = turn.stimulus else {
            return Answer::default();
        };
        let correct = match turn.feedback {
            Feedback::Correct(ok) => Some(ok),
            _ => None,
        };
        let card_for_rule = |rule: usize| DESK.iter().position(|d| d.matches(card, rule));
        let mut belief = None;
        let choice = match self.kind.clone() {
            Scripted::Oracle => turn.hidden.best.unwrap_or(0),
            Scripted::Random => self.uniform(4),
            Scripted::Wsls | Scripted::Pattern { .. } => {
                if correct == Some(false) {
                    self.mem.rule = (self.mem.rule + 1) % 3;
                }
                match card_for_rule(self.mem.rule) {
                    Some(c) => c,
                    None => self.uniform(4),
                }
            }
            Scripted::QLearning { alpha, beta } => {
                if turn.trial == 0 {
                    self.table(1, 3);
                }
                if let Some(ok) = correct {
                    let r = self.mem.rule;
                    self.mem.q[0][r] += alpha * (f64::from(u8::from(ok)) - self.mem.q[0][r]);
                }
                let q = self.mem.q[0].clone();
                self.mem.rule = self.softmax(&q, beta);
                card_for_rule(self.mem.rule).unwrap_or_else(|| self.uniform(4))
            }
            Scripted::Bayesian { hazard } => {
                if turn.trial == 0 {
                    self.mem.belief = vec![1.0 / 3.0; 3];
                }
                if let (Some(ok), Some(prev), Some(last)) =
                    (correct, self.mem.last_choice, self.mem.last_card)
                {
                    for r in 0..3 {
                        let m = DESK[prev].matches(last, r);
                        let like = if m == ok { 0.99 } else { 0.01 };
                        self.mem.belief[r] *= like;
                    }
                    let s: f64 = self.mem.belief.iter().sum();
                    for b in &mut self.mem.belief {
                        *b = (*b / s) * (1.0 - hazard) + hazard / 3.0;
                    }
                }
                let scores: Vec<f64> = (0..4)
                    .map(|c| {
                        (0..3)
                            .filter(|&r| DESK[c].matches(card, r))
                            .map(|r| self.mem.belief[r])
                            .sum()
                    })
                    .collect();
                let c = self.argmax(&scores);
                belief = Some(scores[c]);
                c
            }
        };
        self.mem.last_choice = Some(choice);
        self.mem.last_card = Some(card);
        let mut a = Answer::pick(choice);
        a.belief = belief;
        a
    }

    fn weather(&mut self, turn: &Turn) -> Answer {
        let Stimulus::Weather { today, device1 } = turn.stimulus else {
            return Answer::default();
        };
        let state = 2 * usize::from(!device1) + today;
        let (reward, actual) = match turn.feedback {
            Feedback::Weather { predicted, actual } => (
                Some(f64::from(u8::from(predicted == Some(actual)))),
                Some(actual),
            ),
            _ => (None, None),
        };
        if turn.trial == 0 {
            self.table(4, 2);
        }
        let mut belief = None;
        let choice = match self.kind.clone() {
            Scripted::Oracle => {
                belief = Some(turn.hidden.value);
                usize::from(self.rng.random::<f64>() >= turn.hidden.value)
            }
            Scripted::Random => self.uniform(2),
            Scripted::Wsls | Scripted::Pattern { .. } => self.wsls_answer(reward, 2),
            Scripted::QLearning { beta, .. } => {
                self.learn_table(reward);
                let q = self.mem.q[state].clone();
                self.softmax(&q, beta)
            }
            Scripted::Bayesian { .. } => {
                // Beta counts of tomorrow's weather per (device, today); Thompson sampling.
                if let (Some(a), Some(_)) = (actual, self.mem.last_choice) {
                    let s = self.mem.last_state;
                    self.mem.q[s][a] += 1.0;
                }
                let sunny = (1.0 + self.mem.q[state][0])
                    / (2.0 + self.mem.q[state][0] + self.mem.q[state][1]);
                belief = Some(sunny);
                usize::from(self.rng.random::<f64>() >= sunny)
            }
        };
        self.mem.last_state = state;
        self.mem.last_choice = Some(choice);
        let mut a = Answer::pick(choice);
        a.belief = belief;
        a
    }

    fn iowa(&mut self, turn: &Turn) -> Answer {
        if turn.trial == 0 && matches!(turn.stimulus, Stimulus::IowaFirst { .. }) {
            self.table(1, 4);
        }
        // Learn from what the turn reports: the last final outcome, or the first pick's draw.
        let observed = match (&turn.stimulus, &turn.feedback) {
            (Stimulus::IowaSecond { first, gain, loss }, _) if *first < 4 => {
                Some((*first, gain - loss, *loss))
            }
            (Stimulus::IowaFirst { .. }, Feedback::Iowa { gain, loss }) => {
                self.mem.last_choice.map(|c| (c, gain - loss, *loss))
            }
            _ => None,
        };
        if let Some((deck, net, _)) = observed {
            match self.kind {
                Scripted::QLearning { alpha, .. } => {
                    let q = &mut self.mem.q[0][deck];
                    *q += alpha * (net as f64 / 100.0 - *q);
                }
                Scripted::Bayesian { .. } => {
                    self.mem.q[0][deck] += net as f64;
                    self.mem.n[0][deck] += 1.0;
                }
                _ => {}
            }
        }
        let lost = observed.is_some_and(|(_, _, loss)| loss > 0);
        let second = matches!(turn.stimulus, Stimulus::IowaSecond { .. });
        let stay = if second {
            self.mem.iowa_first
        } else {
            self.mem.last_choice
        };
        let choice = match self.kind.clone() {
            Scripted::Oracle => {
                if second && lost {
                    2
                } else {
                    3
                }
            }
            Scripted::Random => self.uniform(4),
            Scripted::Wsls | Scripted::Pattern { .. } => match stay {
                Some(c) if !lost => c,
                Some(c) => (c + 1 + self.uniform(3)) % 4,
                None => self.uniform(4),
            },
            Scripted::QLearning { beta, .. } => {
                let q = self.mem.q[0].clone();
                self.softmax(&q, beta)
            }
            Scripted::Bayesian { .. } => {
                // Posterior mean of each deck's net with a prior of one draw of 0.
                let means: Vec<f64> = (0..4)
                    .map(|d| self.mem.q[0][d] / (1.0 + self.mem.n[0][d]))
                    .collect();
                self.argmax(&means)
            }
        };
        if second {
            self.mem.last_choice = Some(choice);
        } else {
            self.mem.iowa_first = Some(choice);
        }
        Answer::pick(choice)
    }
}

impl Agent for ScriptedAgent {
    fn name(&self) -> String {
        self.kind.name()
    }

    fn begin(&mut self, task: Task, settings: &Settings, session: usize) -> Result<(), String> {
        self.task = task;
        self.settings = settings.clone();
        self.mem = Memory::default();
        if task == Task::NBack {
            self.table(3, 3);
        }
        let stream = 100 * (session as u64 + 1)
            + Task::ALL.iter().position(|t| *t == task).unwrap_or(0) as u64;
        self.rng = seeded(benchtop_compute::rng::derive_seed(self.seed, stream));
        Ok(())
    }

    fn answer(&mut self, turn: &Turn) -> Result<Answer, String> {
        Ok(match turn.task {
            Task::Oddball => self.oddball(turn),
            Task::NBack => self.nback(turn),
            Task::Reversal | Task::MetaBandit => self.bandit(turn),
            Task::Wcst => self.wcst(turn),
            Task::Weather => self.weather(turn),
            Task::Iowa => self.iowa(turn),
        })
    }
}
