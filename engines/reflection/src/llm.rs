//! The language-model agent: one multi-turn chat per session with an OpenAI-compatible
//! `/chat/completions` endpoint (URL, model and key from settings or the environment; off by
//! default), the tasks' system prompts, the answer-extraction step and a transcript.
//!
//! Extraction: the paper asks a second model (DeepSeek, temperature 0) to map each free reply to
//! an option. Here a rule extractor reads the option from the reply first (the last mention of
//! an option label); only when it finds none, and `llm_extractor` is on, the same endpoint is
//! asked with the task's extractor prompt.

use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::agents::Agent;
use crate::http::{self, Message, Url};
use crate::session::{Answer, Turn, options};
use crate::task::{Settings, Task};
use crate::trust;

/// How the subject is asked to answer (the paper's three output strategies).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum Strategy {
    /// No instruction added.
    #[default]
    Free,
    /// "Respond only with your choice".
    Direct,
    /// "Let's think step by step".
    ChainOfThought,
}

impl Strategy {
    fn suffix(self, task: Task) -> &'static str {
        match (self, task) {
            (Self::Free, _) => "",
            (Self::Direct, Task::Oddball) => {
                " Respond only with your comments, without any other information or analysis."
            }
            (Self::Direct, _) => {
                " Respond only with your choice, without any other information or analysis."
            }
            (Self::ChainOfThought, _) => " Let's think step by step.",
        }
    }
}

/// Settings of the language-model agent.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct LlmConfig {
    /// Base URL of the OpenAI-compatible API (`http://127.0.0.1:8080/v1`), or the full
    /// `…/chat/completions` address. Empty: `BENCHTOP_LLM_ENDPOINT`.
    pub endpoint: String,
    /// Model name. Empty: `BENCHTOP_LLM_MODEL`.
    pub model: String,
    /// API key; never saved in projects. Empty: `BENCHTOP_LLM_API_KEY`.
    #[serde(skip)]
    pub api_key: String,
    /// Sampling temperature (the paper: 1).
    pub temperature: f64,
    /// Output strategy.
    pub strategy: Strategy,
    /// Ask the endpoint to extract the answer when the rule extractor finds none.
    pub llm_extractor: bool,
    /// Seconds one request may take in all (connecting, sending, reading the reply), 1 to 3600.
    pub timeout_s: f64,
}

impl Default for LlmConfig {
    fn default() -> Self {
        Self {
            endpoint: String::new(),
            model: String::new(),
            api_key: String::new(),
            temperature: 1.0,
            strategy: Strategy::Free,
            llm_extractor: false,
            timeout_s: 120.0,
        }
    }
}

impl LlmConfig {
    /// Fills empty endpoint, model and key from `BENCHTOP_LLM_ENDPOINT`, `BENCHTOP_LLM_MODEL`
    /// and `BENCHTOP_LLM_API_KEY`.
    pub fn with_env(mut self) -> Self {
        let fill = |v: &mut String, k: &str| {
            if v.trim().is_empty()
                && let Ok(x) = std::env::var(k)
            {
                *v = x;
            }
        };
        fill(&mut self.endpoint, "BENCHTOP_LLM_ENDPOINT");
        fill(&mut self.model, "BENCHTOP_LLM_MODEL");
        fill(&mut self.api_key, "BENCHTOP_LLM_API_KEY");
        self
    }

    /// Checks the numbers a project file may set (the text fields are checked by
    /// [`LlmConfig::chat_url`]).
    pub fn validate(&self) -> Result<(), String> {
        if !(self.timeout_s.is_finite() && (1.0..=3600.0).contains(&self.timeout_s)) {
            return Err(format!(
                "llm.timeout_s = {}: choose 1 to 3600 seconds",
                self.timeout_s
            ));
        }
        if !(self.temperature.is_finite() && (0.0..=2.0).contains(&self.temperature)) {
            return Err(format!(
                "llm.temperature = {}: choose 0 to 2",
                self.temperature
            ));
        }
        if self.model.len() > 256 || self.model.chars().any(char::is_control) {
            return Err("llm.model: at most 256 characters, no control characters".to_owned());
        }
        Ok(())
    }

    /// The chat-completions address.
    pub fn chat_url(&self) -> Result<Url, String> {
        if self.endpoint.trim().is_empty() {
            return Err("no endpoint: set it in the panel or BENCHTOP_LLM_ENDPOINT".into());
        }
        let e = self.endpoint.trim().trim_end_matches('/');
        let full = if e.ends_with("/chat/completions") {
            e.to_owned()
        } else {
            format!("{e}/chat/completions")
        };
        Url::parse(&full)
    }
}

/// The subject's system prompt for a task (our wording of the paper's prompts).
pub fn system_prompt(task: Task, settings: &Settings) -> String {
    let n = settings.nback.n;
    match task {
        Task::Oddball => "You are playing a game in which you will read a sequence of sentences \
            about a topic. Just make some short comments on the material."
            .into(),
        Task::NBack => format!(
            "You are playing a game. I will show you a series of characters, one at a time. \
             Decide whether the current character is the same as the character {n} steps \
             before. If it is the same, answer Yes. If it is different, answer No. For the \
             first {n} steps there are not enough characters to compare, so answer Not \
             available."
        ),
        Task::Reversal => "You are playing a two-arm bandit game. Each time, choose the right \
            arm or the left arm. You will receive feedback (0 or 1) for your choice. Your goal \
            is to maximise the total reward. Keep playing until the end of the test."
            .into(),
        Task::Wcst => {
            let desk: Vec<String> = options(Task::Wcst)
                .iter()
                .map(|c| format!("'{c}'"))
                .collect();
            format!(
                "You are performing a card task. Four cards lie on your desk: {}. Each card \
                 names (1) a shape (triangle, cross, circle or star), (2) a colour (red, green, \
                 yellow or blue) and (3) a number (1 to 4). On each trial you are shown a \
                 testing card and must say which card on your desk matches it. I will not tell \
                 you the matching rule, only whether your choice was right or wrong. Maximise \
                 your accuracy. Respond with one of the desk cards. Keep going until the end of \
                 the test.",
                desk.join(", ")
            )
        }
        Task::Weather => "You are a forecaster at a weather station with two devices, each 0 \
            (inactive) or 1 (active), given as [d1, d2]. Each day, predict tomorrow's weather \
            (sunny or rainy) from today's weather and the device states. After each prediction \
            I will tell you the actual weather; use the feedback to improve. Keep going until \
            the end of the test."
            .into(),
        Task::Iowa => format!(
            "You are playing a card game with four decks labelled 'AAA', 'BBB', 'CCC' and \
             'DDD'. You start with ${} and your goal is to maximise your money. On each trial: \
             1. choose a deck; 2. you are told what that choice would gain and lose; 3. you may \
             then keep your choice or choose another deck; 4. your final choice decides the \
             actual gain or loss. Respond with a deck (AAA, BBB, CCC or DDD) each time. Keep \
             going until told to stop.",
            settings.iowa.start_money
        ),
        Task::MetaBandit => "You are playing a two-arm bandit game. Each time one arm is \
            rewarding; choose the right arm or the left arm. You will receive feedback (0 or 1) \
            for your choice. Your goal is to maximise the total reward. Respond with your \
            choice (right arm or left arm). Keep playing until the end of the test."
            .into(),
    }
}

/// The extractor's system prompt for a task (asks for one option label, exactly).
pub fn extractor_prompt(task: Task) -> String {
    let opts: Vec<String> = options(task).iter().map(|o| format!("'{o}'")).collect();
    format!(
        "You are the experimenter of a {} task. I will send you a subject's reply. It may \
         contain analysis; extract only their final answer for the current trial. Respond only \
         with exactly one of: {}.",
        task.label(),
        opts.join(", ")
    )
}

/// Word-boundary positions of `needle` in `hay` (both lower case).
fn word_positions(hay: &str, needle: &str) -> Vec<usize> {
    let mut out = Vec::new();
    let mut from = 0;
    while let Some(i) = hay[from..].find(needle) {
        let s = from + i;
        let e = s + needle.len();
        let before = hay[..s]
            .chars()
            .next_back()
            .is_none_or(|c| !c.is_alphanumeric());
        let after = hay[e..].chars().next().is_none_or(|c| !c.is_alphanumeric());
        if before && after {
            out.push(s);
        }
        from = s + needle.len().max(1);
    }
    out
}

/// The rule extractor: the option whose label (or synonym) is mentioned last in `reply`.
pub fn extract(task: Task, reply: &str) -> Option<usize> {
    let hay = reply.to_lowercase();
    let synonyms: Vec<Vec<String>> = match task {
        Task::Oddball => return None,
        Task::NBack => vec![
            vec!["yes".into()],
            vec!["no".into()],
            vec!["not available".into(), "not avaliable".into(), "n/a".into()],
        ],
        Task::Reversal | Task::MetaBandit => vec![vec!["right".into()], vec!["left".into()]],
        _ => options(task)
            .into_iter()
            .map(|o| vec![o.to_lowercase()])
            .collect(),
    };
    let mut best: Option<(usize, usize, usize)> = None; // (position, length, option)
    for (i, syns) in synonyms.iter().enumerate() {
        for s in syns {
            for p in word_positions(&hay, s) {
                // A later mention wins; at the same place the longer phrase ("not available"
                // over "no") wins.
                let better = best.is_none_or(|(bp, bl, _)| p > bp || (p == bp && s.len() > bl));
                // "no" inside "not available" starts at the same place only if the phrase
                // does, so the length rule covers it.
                if better {
                    best = Some((p, s.len(), i));
                }
            }
        }
    }
    // A trailing "not available" ends after a "no" that starts inside it cannot: words only.
    best.map(|(_, _, i)| i)
}

/// The most characters of conversation sent with one request; older exchanges are dropped
/// first (a reply that grows without bound cannot grow every later request with it).
pub const MAX_CONVERSATION_CHARS: usize = 256 * 1024;

/// One exchange in a transcript.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Exchange {
    /// The task.
    pub task: Task,
    /// Session index.
    pub session: usize,
    /// Trial index.
    pub trial: usize,
    /// What was sent (the user message).
    pub prompt: String,
    /// The model's reply.
    pub reply: String,
    /// The extracted option label, if any.
    pub extracted: Option<String>,
    /// How it was extracted: `rule`, `llm` or `none`.
    pub extractor: String,
}

/// The language-model agent.
pub struct LlmAgent {
    config: LlmConfig,
    url: Url,
    task: Task,
    session: usize,
    system: String,
    conversation: Vec<Message>,
    /// Every exchange of every session, in order.
    pub transcript: Vec<Exchange>,
}

impl LlmAgent {
    /// The agent for `config` (blanks filled from the environment). An endpoint named in
    /// `config` (a project's) is contacted only when the user approved its `host:port`
    /// ([`trust`]); one from `BENCHTOP_LLM_ENDPOINT` is the user's own.
    pub fn new(config: LlmConfig) -> Result<Self, String> {
        Self::build(config, false)
    }

    /// The agent for an endpoint the user typed (e.g. `benchtop reflect --endpoint URL`).
    pub fn with_typed_endpoint(config: LlmConfig) -> Result<Self, String> {
        Self::build(config, true)
    }

    fn build(config: LlmConfig, typed: bool) -> Result<Self, String> {
        config.validate()?;
        let from_environment = config.endpoint.trim().is_empty();
        let config = config.with_env();
        let url = config.chat_url()?;
        if !(typed || from_environment || trust::is_approved(&url.origin())) {
            return Err(format!(
                "the endpoint {} is named by the project, and Benchtop contacts an endpoint \
                 (with BENCHTOP_LLM_API_KEY) only once you approve it: press \"Approve\" in the \
                 panel's Language model tab, run `benchtop reflect --approve {}`, or add {} to \
                 BENCHTOP_LLM_APPROVED_HOSTS",
                url.text(),
                url.text(),
                url.origin()
            ));
        }
        Ok(Self {
            config,
            url,
            task: Task::Oddball,
            session: 0,
            system: String::new(),
            conversation: Vec::new(),
            transcript: Vec::new(),
        })
    }

    /// `text` without the API key.
    fn clean(&self, text: &str) -> String {
        trust::redact(text, &self.config.api_key)
    }

    fn complete(&self, messages: &[Message], temperature: f64) -> Result<String, String> {
        let body = serde_json::json!({
            "model": self.config.model,
            "messages": messages,
            "temperature": temperature,
        });
        let key = Some(self.config.api_key.as_str()).filter(|k| !k.is_empty());
        let deadline = Duration::from_secs_f64(self.config.timeout_s.clamp(1.0, 3600.0));
        let (status, text) = http::post_json(&self.url, key, &body.to_string(), deadline)
            .map_err(|e| self.clean(&e))?;
        if status != 200 {
            return Err(self.clean(&format!(
                "endpoint answered HTTP {status}: {}",
                http::cut(&text)
            )));
        }
        let v: serde_json::Value = serde_json::from_str(&text).map_err(|e| {
            self.clean(&format!(
                "endpoint reply is not JSON ({e}): {}",
                http::cut(&text)
            ))
        })?;
        v["choices"][0]["message"]["content"]
            .as_str()
            .map(|reply| self.clean(reply))
            .ok_or_else(|| {
                self.clean(&format!(
                    "endpoint reply has no choices[0].message.content: {}",
                    http::cut(&text)
                ))
            })
    }

    /// Drops the oldest exchanges (never the system prompt) until the conversation sent with
    /// each request holds at most [`MAX_CONVERSATION_CHARS`] characters.
    fn bound_conversation(&mut self) {
        let size = |m: &Vec<Message>| m.iter().map(|x| x.content.len()).sum::<usize>();
        while self.conversation.len() > 2 && size(&self.conversation) > MAX_CONVERSATION_CHARS {
            self.conversation.remove(1);
        }
    }

    /// The transcript as JSON.
    pub fn transcript_json(&self) -> String {
        serde_json::to_string_pretty(&self.transcript).unwrap_or_default()
    }
}

impl Agent for LlmAgent {
    fn name(&self) -> String {
        if self.config.model.is_empty() {
            "llm".into()
        } else {
            format!("llm:{}", self.config.model)
        }
    }

    fn begin(&mut self, task: Task, settings: &Settings, session: usize) -> Result<(), String> {
        self.task = task;
        self.session = session;
        self.system = system_prompt(task, settings);
        self.conversation = vec![Message {
            role: "system".into(),
            content: self.system.clone(),
        }];
        Ok(())
    }

    fn answer(&mut self, turn: &Turn) -> Result<Answer, String> {
        let prompt = format!("{}{}", turn.message, self.config.strategy.suffix(turn.task));
        if turn.task == Task::Oddball {
            // Oddball: a fresh conversation per paragraph, as in the paper.
            self.conversation.truncate(1);
        }
        self.conversation.push(Message {
            role: "user".into(),
            content: prompt.clone(),
        });
        self.bound_conversation();
        let reply = self.complete(&self.conversation, self.config.temperature)?;
        self.conversation.push(Message {
            role: "assistant".into(),
            content: reply.clone(),
        });
        let mut how = "rule";
        let mut choice = extract(turn.task, &reply);
        if choice.is_none() && turn.task != Task::Oddball && self.config.llm_extractor {
            let msgs = [
                Message {
                    role: "system".into(),
                    content: extractor_prompt(turn.task),
                },
                Message {
                    role: "user".into(),
                    content: reply.clone(),
                },
            ];
            choice = extract(turn.task, &self.complete(&msgs, 0.0)?);
            how = "llm";
        }
        if choice.is_none() {
            how = "none";
        }
        self.transcript.push(Exchange {
            task: turn.task,
            session: self.session,
            trial: turn.trial,
            prompt,
            reply: reply.clone(),
            extracted: choice.and_then(|c| turn.options.get(c).cloned()),
            extractor: how.into(),
        });
        Ok(Answer {
            choice,
            text: reply,
            belief: None,
        })
    }
}
