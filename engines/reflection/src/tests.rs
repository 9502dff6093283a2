//! Known-answer tests (module `reflection_tests`: filter `reflection_`).

mod reflection_tests {
    use crate::agents::{Agent, Scripted, ScriptedAgent};
    use crate::http::{Message, MockServer, Url};
    use crate::llm::{LlmAgent, LlmConfig, extract};
    use crate::run::{self, BenchParams, play, session_seed};
    use crate::score::{self, reversal_parts};
    use crate::session::{Answer, Detail, Feedback, Session, TrialRecord, Turn};
    use crate::task::{Settings, Task};
    use crate::tfidf;
    use benchtop_compute::{CancelToken, Progress};

    fn play_kind(kind: Scripted, task: Task, settings: &Settings, session: usize) -> f64 {
        let mut a = ScriptedAgent::new(kind, 9);
        play(&mut a, task, settings, session, 42).unwrap().score
    }

    fn reversal_records(choices: impl Fn(usize) -> bool, s: &Settings) -> Vec<TrialRecord> {
        let t = s.reversal.trials;
        (0..t)
            .map(|i| {
                let p_right = if i < t / 2 {
                    s.reversal.p
                } else {
                    1.0 - s.reversal.p
                };
                TrialRecord {
                    trial: i,
                    choice: Some(if choices(i) { 0 } else { 1 }),
                    label: String::new(),
                    reward: 0.0,
                    hidden: p_right,
                    hidden_label: String::new(),
                    belief: None,
                    detail: Detail::Reversal { p_right },
                }
            })
            .collect()
    }

    #[test]
    fn reflection_reversal_belief_part_matches_the_notes() {
        let s = Settings::default();
        let (_, always) = reversal_parts(&s, &reversal_records(|_| true, &s));
        let (_, switch) = reversal_parts(&s, &reversal_records(|i| i < 20, &s));
        // "Alternate" starts on the left arm (starting on the right gives 67.055).
        let (_, alt) = reversal_parts(&s, &reversal_records(|i| i % 2 == 1, &s));
        assert!((always - 43.643).abs() < 5e-4, "{always}");
        assert!((switch - 77.538).abs() < 5e-4, "{switch}");
        assert!((alt - 64.035).abs() < 5e-4, "{alt}");
    }

    #[test]
    fn reflection_meta_bandit_pattern_and_wsls() {
        let s = Settings::default();
        assert_eq!(s.meta.reversal_count(), 19);
        for session in 0..3 {
            let fixed = play_kind(
                Scripted::Pattern { period: Some(2) },
                Task::MetaBandit,
                &s,
                session,
            );
            assert_eq!(fixed, 19.0);
            assert_eq!(
                play_kind(Scripted::Wsls, Task::MetaBandit, &s, session),
                0.0
            );
            assert_eq!(
                play_kind(Scripted::Oracle, Task::MetaBandit, &s, session),
                19.0
            );
            // The learning detector misses the two reversals it learns the period from.
            assert_eq!(
                play_kind(
                    Scripted::Pattern { period: None },
                    Task::MetaBandit,
                    &s,
                    session
                ),
                17.0
            );
        }
        // Another schedule: reversal every 4 of 48 trials → 11 scorable reversals.
        let s4 = Settings {
            meta: crate::task::MetaSettings {
                trials: 48,
                interval: 4,
            },
            ..Settings::default()
        };
        assert_eq!(s4.meta.reversal_count(), 11);
        assert_eq!(
            play_kind(
                Scripted::Pattern { period: Some(4) },
                Task::MetaBandit,
                &s4,
                0
            ),
            11.0
        );
        assert_eq!(play_kind(Scripted::Wsls, Task::MetaBandit, &s4, 0), 0.0);
    }

    fn always_ddd_session(seed: u64, s: &Settings) -> Session {
        let mut sess = Session::new(Task::Iowa, s, seed);
        while sess.turn().is_some() {
            sess.submit(&Answer::pick(3));
        }
        sess
    }

    #[test]
    fn reflection_iowa_always_ddd_is_about_63() {
        let s = Settings::default();
        let mut total = 0.0;
        let n = 400;
        for k in 0..n {
            let sess = always_ddd_session(k, &s);
            // Exact identity per session: stay every trial; a shown loss costs 1.4.
            let losses = sess
                .records()
                .iter()
                .filter(|r| matches!(r.detail, Detail::Iowa { loss1, .. } if loss1 > 0))
                .count() as f64;
            let (switch, money) = score::iowa_parts(&s, sess.records());
            let t = s.iowa.trials as f64;
            assert!((switch - 100.0 * ((t - losses) - 1.4 * losses) / t).abs() < 1e-9);
            let Detail::Iowa {
                money: final_money, ..
            } = sess.records().last().unwrap().detail
            else {
                unreachable!()
            };
            assert!((money - 100.0 * final_money as f64 / 7000.0).abs() < 1e-9);
            total += sess.score();
        }
        let mean = total / n as f64;
        assert!((mean - 63.0).abs() < 1.0, "always-DDD mean {mean}");
    }

    #[test]
    fn reflection_nback_oracle_is_100_on_several_sequences() {
        for (seed, n) in [(2025, 2), (7, 2), (11, 3), (3, 1)] {
            let mut s = Settings {
                data_seed: seed,
                ..Settings::default()
            };
            s.nback.n = n;
            assert_eq!(play_kind(Scripted::Oracle, Task::NBack, &s, 0), 100.0);
        }
        // Random is far from it.
        let r = play_kind(Scripted::Random, Task::NBack, &Settings::default(), 0);
        assert!(r < 70.0, "{r}");
    }

    #[test]
    fn reflection_wcst_oracle_scores_the_matchable_fraction() {
        for seed in [2025, 5] {
            let s = Settings {
                data_seed: seed,
                ..Settings::default()
            };
            let cards = crate::data::wcst_cards(seed, s.wcst.trials);
            let matchable = cards
                .iter()
                .enumerate()
                .filter(|(i, c)| {
                    let rule = (i / s.wcst.rule_interval) % 3;
                    crate::data::DESK.iter().any(|d| d.matches(**c, rule))
                })
                .count();
            let oracle = play_kind(Scripted::Oracle, Task::Wcst, &s, 0);
            assert!((oracle - 100.0 * matchable as f64 / cards.len() as f64).abs() < 1e-9);
            assert!(oracle < 100.0, "number 3 matches no desk card");
            // WSLS over rules learns every rule change within a trial or two.
            let wsls = play_kind(Scripted::Wsls, Task::Wcst, &s, 0);
            let random = play_kind(Scripted::Random, Task::Wcst, &s, 0);
            assert!(wsls > random + 20.0, "wsls {wsls} random {random}");
        }
    }

    #[test]
    fn reflection_weather_perfect_prediction_scores_100() {
        let s = Settings::default();
        let mut sess = Session::new(Task::Weather, &s, 3);
        // Peek at tomorrow by replaying the same seed: predict exactly the outcome.
        let mut shadow = Session::new(Task::Weather, &s, 3);
        while sess.turn().is_some() {
            shadow.submit(&Answer::pick(0));
            let Detail::Weather { tomorrow, .. } = shadow.records().last().unwrap().detail else {
                unreachable!()
            };
            sess.submit(&Answer::pick(tomorrow));
        }
        assert!((sess.score() - 100.0).abs() < 1e-9, "{}", sess.score());
        let oracle: f64 = (0..6)
            .map(|k| play_kind(Scripted::Oracle, Task::Weather, &s, k))
            .sum();
        let random: f64 = (0..6)
            .map(|k| play_kind(Scripted::Random, Task::Weather, &s, k))
            .sum();
        assert!(oracle > random, "oracle {oracle} random {random}");
    }

    #[test]
    fn reflection_oddball_similarity() {
        assert!((tfidf::cosine(crate::data::SURPRISE, crate::data::SURPRISE) - 1.0).abs() < 1e-12);
        assert_eq!(
            tfidf::surprise_similarity("Bees collect nectar. Honey is sweet."),
            0.0
        );
        let s = Settings::default();
        let oracle = play_kind(Scripted::Oracle, Task::Oddball, &s, 0);
        let plain = play_kind(Scripted::Wsls, Task::Oddball, &s, 0);
        assert!(
            oracle > 40.0 && plain < 5.0,
            "oracle {oracle} plain {plain}"
        );
    }

    #[test]
    fn reflection_extraction_reads_the_last_option() {
        assert_eq!(extract(Task::NBack, "No."), Some(1));
        assert_eq!(extract(Task::NBack, "Not available"), Some(2));
        assert_eq!(extract(Task::NBack, "Hmm, no wait... yes!"), Some(0));
        assert_eq!(
            extract(Task::Reversal, "Left paid less, so: right arm."),
            Some(0)
        );
        assert_eq!(
            extract(Task::Wcst, "Testing card circle blue 3; I pick star blue 4"),
            Some(3)
        );
        assert_eq!(extract(Task::Iowa, "I'll stay with DDD"), Some(3));
        assert_eq!(extract(Task::Weather, "It will be rainy"), Some(1));
        assert_eq!(extract(Task::Weather, "I cannot tell"), None);
        assert!(
            Url::parse("https://api.example.com/v1")
                .unwrap_err()
                .contains("https")
        );
        assert_eq!(Url::parse("http://127.0.0.1:8080/v1").unwrap().port, 8080);
    }

    /// Win-stay-lose-shift starting on the right arm, on structured feedback.
    struct RightFirstWsls(Option<usize>);

    impl Agent for RightFirstWsls {
        fn name(&self) -> String {
            "wsls_right_first".into()
        }
        fn begin(&mut self, _: Task, _: &Settings, _: usize) -> Result<(), String> {
            self.0 = None;
            Ok(())
        }
        fn answer(&mut self, turn: &Turn) -> Result<Answer, String> {
            let c = match (self.0, &turn.feedback) {
                (Some(c), Feedback::Reward(0)) => 1 - c,
                (Some(c), _) => c,
                (None, _) => 0,
            };
            self.0 = Some(c);
            Ok(Answer::pick(c))
        }
    }

    /// The same policy read from the chat text, as a model server would.
    fn wsls_text(messages: &[Message]) -> String {
        let last_reply = messages.iter().rev().find(|m| m.role == "assistant");
        let last_user = &messages.last().unwrap().content;
        let prev = last_reply.map(|m| m.content.contains("left"));
        let left = match prev {
            None => false,
            Some(was_left) if last_user.contains("reward of 0") => !was_left,
            Some(was_left) => was_left,
        };
        if left {
            "I will take the left arm.".into()
        } else {
            "Right arm, please.".into()
        }
    }

    fn nback_text(messages: &[Message]) -> String {
        let letters: Vec<char> = messages
            .iter()
            .filter(|m| m.role == "user")
            .filter_map(|m| {
                m.content
                    .split("Current character is: ")
                    .nth(1)?
                    .chars()
                    .next()
            })
            .collect();
        let k = letters.len();
        if k <= 2 {
            "Not available".into()
        } else if letters[k - 1] == letters[k - 3] {
            "Yes, it matches.".into()
        } else {
            "No.".into()
        }
    }

    fn iowa_text(messages: &[Message]) -> String {
        let last = &messages.last().unwrap().content;
        if last.contains("If you choose this deck") && !last.contains("loss: $0,") {
            "That hurts. I switch to CCC.".into()
        } else {
            "DDD".into()
        }
    }

    fn llm_score(policy: fn(&[Message]) -> String, task: Task, session: usize) -> (f64, LlmAgent) {
        let server = MockServer::start(policy).unwrap();
        let cfg = LlmConfig {
            endpoint: server.url.clone(),
            model: "scripted".into(),
            ..LlmConfig::default()
        };
        let mut agent = LlmAgent::new(cfg).unwrap();
        let r = play(&mut agent, task, &Settings::default(), session, 42).unwrap();
        (r.score, agent)
    }

    #[test]
    fn reflection_llm_agent_over_local_server_reproduces_scripted_scores() {
        let s = Settings::default();
        // Reversal: the same policy as a structured agent, same environment seed.
        let (llm, agent) = llm_score(wsls_text, Task::Reversal, 1);
        let scripted = play(&mut RightFirstWsls(None), Task::Reversal, &s, 1, 42)
            .unwrap()
            .score;
        assert_eq!(llm, scripted);
        assert_eq!(agent.transcript.len(), s.reversal.trials);
        assert!(agent.transcript.iter().all(|e| e.extractor == "rule"));
        assert!(agent.transcript_json().contains("Right arm, please."));
        // n-back: the oracle's 100.
        let (llm, _) = llm_score(nback_text, Task::NBack, 0);
        assert_eq!(llm, play_kind(Scripted::Oracle, Task::NBack, &s, 0));
        assert_eq!(llm, 100.0);
        // Iowa (two messages per trial): the scripted oracle's score exactly.
        for session in 0..2 {
            let (llm, _) = llm_score(iowa_text, Task::Iowa, session);
            let mut oracle = ScriptedAgent::new(Scripted::Oracle, 1);
            let scripted = play(&mut oracle, Task::Iowa, &s, session, 42)
                .unwrap()
                .score;
            assert_eq!(llm, scripted);
        }
    }

    #[test]
    fn reflection_llm_agent_reports_unreachable_endpoints() {
        let cfg = LlmConfig {
            endpoint: "http://127.0.0.1:9/v1".into(),
            timeout_s: 2.0,
            ..LlmConfig::default()
        };
        let mut agent = LlmAgent::new(cfg).unwrap();
        let err = play(&mut agent, Task::Reversal, &Settings::default(), 0, 1).unwrap_err();
        assert!(err.contains("127.0.0.1:9"), "{err}");
        assert!(
            LlmAgent::new(LlmConfig {
                endpoint: "ftp://x".into(),
                ..LlmConfig::default()
            })
            .is_err()
        );
    }

    #[test]
    fn reflection_table_is_deterministic_and_ranks_the_oracle_first() {
        let p = BenchParams::default();
        let a = run::run(&p, 5, &Progress::new(), &CancelToken::new()).unwrap();
        let b = run::run(&p, 5, &Progress::new(), &CancelToken::new()).unwrap();
        assert_eq!(a, b);
        assert_eq!(a.scores.len(), 6);
        let oracle = a.overall["oracle"];
        for (name, v) in &a.overall {
            if name != "oracle" {
                assert!(oracle > *v, "oracle {oracle} vs {name} {v}");
            }
        }
        let st = a.scores["random"][&Task::Oddball];
        assert_eq!(st.sessions, 3);
        assert_eq!(a.scores["random"][&Task::Wcst].sessions, 2);
        // Every agent faces the same environment in a session.
        assert_eq!(
            session_seed(5, Task::Iowa, 0),
            session_seed(5, Task::Iowa, 0)
        );
        assert_ne!(
            session_seed(5, Task::Iowa, 0),
            session_seed(5, Task::Iowa, 1)
        );
    }

    #[test]
    fn reflection_bad_settings_are_named() {
        let mut s = Settings::default();
        s.reversal.p = 1.5;
        assert!(s.validate().unwrap_err().contains("reversal.p"));
        let p = BenchParams {
            settings: s,
            ..BenchParams::default()
        };
        let e = run::run(&p, 1, &Progress::new(), &CancelToken::new()).unwrap_err();
        assert!(e.to_string().contains("reversal.p"));
    }

    #[test]
    fn reflection_bench_checksum_is_stable() {
        let r = crate::bench::run(&crate::bench::BenchParams {
            sessions: 10,
            trials: 40,
            repeats: 1,
        })
        .unwrap();
        let again = crate::bench::run(&crate::bench::BenchParams {
            sessions: 10,
            trials: 40,
            repeats: 1,
        })
        .unwrap();
        assert_eq!(r.score_checksum, again.score_checksum);
        assert!(r.score_checksum > 0.0);
    }
}
