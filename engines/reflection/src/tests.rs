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
        crate::trust::approve_for_session(&Url::parse(&server.url).unwrap().origin());
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
        crate::trust::approve_for_session("127.0.0.1:9");
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

    /// A raw server on 127.0.0.1 for one connection: reads the request (head and body), hands
    /// its text to `respond`, and writes what `respond` returns, `pause` between its chunks.
    /// Returns the base URL and the thread, which yields the request text.
    fn raw_server(
        respond: fn(&str) -> Vec<Vec<u8>>,
        pause: std::time::Duration,
    ) -> (String, std::thread::JoinHandle<String>) {
        use std::io::{BufRead as _, BufReader, Read as _, Write as _};
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let url = format!("http://{}/v1", listener.local_addr().unwrap());
        let handle = std::thread::Builder::new()
            .name("hostile-endpoint".into())
            .spawn(move || {
                let (stream, _) = listener.accept().unwrap();
                let mut reader = BufReader::new(stream.try_clone().unwrap());
                let mut request = String::new();
                let mut length = 0;
                loop {
                    let mut line = String::new();
                    if reader.read_line(&mut line).unwrap_or(0) == 0 {
                        break;
                    }
                    if let Some(v) = line.to_ascii_lowercase().strip_prefix("content-length:") {
                        length = v.trim().parse().unwrap_or(0);
                    }
                    request.push_str(&line);
                    if line == "\r\n" {
                        break;
                    }
                }
                let mut body = vec![0; length];
                let _ = reader.read_exact(&mut body);
                request.push_str(&String::from_utf8_lossy(&body));
                let mut out = stream;
                for chunk in respond(&request) {
                    if out.write_all(&chunk).and_then(|()| out.flush()).is_err() {
                        break;
                    }
                    std::thread::sleep(pause);
                }
                request
            })
            .unwrap();
        (url, handle)
    }

    /// An approved agent for `url` with a key and a deadline.
    fn hostile_agent(url: &str, key: &str, timeout_s: f64) -> LlmAgent {
        crate::trust::approve_for_session(&Url::parse(url).unwrap().origin());
        LlmAgent::new(LlmConfig {
            endpoint: url.into(),
            model: "m".into(),
            api_key: key.into(),
            timeout_s,
            ..LlmConfig::default()
        })
        .unwrap()
    }

    /// The agent's answer to the first turn of a reversal session (one request).
    fn one_turn(agent: &mut LlmAgent) -> Result<Answer, String> {
        let settings = Settings::default();
        agent.begin(Task::Reversal, &settings, 0)?;
        let turn = Session::new(Task::Reversal, &settings, 1)
            .turn()
            .ok_or("no turn")?;
        agent.answer(&turn)
    }

    #[test]
    fn reflection_a_project_endpoint_is_not_contacted_until_approved() {
        let cfg = LlmConfig {
            endpoint: "http://not-approved.invalid:8123/v1".into(),
            ..LlmConfig::default()
        };
        let error = LlmAgent::new(cfg.clone()).map(|_| ()).unwrap_err();
        assert!(
            error.contains("not-approved.invalid:8123") && error.contains("approve"),
            "{error}"
        );
        // The same endpoint typed by the user is theirs.
        assert!(LlmAgent::with_typed_endpoint(cfg).is_ok());
    }

    #[test]
    fn reflection_the_key_never_leaves_in_errors_or_replies() {
        let key = "sk-benchtop-test-key-42";
        // A server that echoes the request (headers included) in a 401 body.
        let (url, server) = raw_server(
            |request| {
                let body = format!("unauthorised; you sent:\n{request}");
                vec![
                    format!(
                        "HTTP/1.1 401 Unauthorized\r\nContent-Length: {}\r\n\r\n{body}",
                        body.len()
                    )
                    .into_bytes(),
                ]
            },
            std::time::Duration::ZERO,
        );
        let mut agent = hostile_agent(&url, key, 10.0);
        let error = one_turn(&mut agent).unwrap_err();
        let request = server.join().unwrap();
        assert!(
            request.contains(key),
            "the approved endpoint did get the key"
        );
        assert!(error.contains("401") && !error.contains(key), "{error}");
        // A reply that echoes the key is redacted in the answer and the transcript.
        let (url, _server) = raw_server(
            |request| {
                let echoed = request
                    .lines()
                    .find(|l| l.to_ascii_lowercase().starts_with("authorization"))
                    .unwrap_or_default()
                    .to_owned();
                let body = serde_json::json!({"choices": [{"message": {"content":
                    format!("right arm ({echoed})")}}]})
                .to_string();
                vec![
                    format!(
                        "HTTP/1.1 200 OK\r\nContent-Length: {}\r\n\r\n{body}",
                        body.len()
                    )
                    .into_bytes(),
                ]
            },
            std::time::Duration::ZERO,
        );
        let mut agent = hostile_agent(&url, key, 10.0);
        let answer = one_turn(&mut agent).unwrap();
        assert!(!answer.text.contains(key) && answer.text.contains(crate::trust::REDACTED));
        assert!(!agent.transcript_json().contains(key));
    }

    #[test]
    fn reflection_hostile_replies_fail_cleanly_within_the_deadline() {
        // A length of 10^15 bytes: refused, not allocated.
        let (url, _s) = raw_server(
            |_| vec![b"HTTP/1.1 200 OK\r\nContent-Length: 1000000000000000\r\n\r\n{".to_vec()],
            std::time::Duration::ZERO,
        );
        let error = one_turn(&mut hostile_agent(&url, "", 5.0)).unwrap_err();
        assert!(error.contains("127.0.0.1"), "{error}");
        // A chunk size of 2^64 − 1.
        let (url, _s) = raw_server(
            |_| {
                vec![
                    b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nffffffffffffffff\r\n{"
                        .to_vec(),
                ]
            },
            std::time::Duration::ZERO,
        );
        assert!(one_turn(&mut hostile_agent(&url, "", 5.0)).is_err());
        // 5 MB of reply: more than the limit.
        let (url, _s) = raw_server(
            |_| {
                let n = 5 * 1024 * 1024;
                let mut reply =
                    format!("HTTP/1.1 200 OK\r\nContent-Length: {n}\r\n\r\n").into_bytes();
                reply.extend(std::iter::repeat_n(b'x', n));
                vec![reply]
            },
            std::time::Duration::ZERO,
        );
        let error = one_turn(&mut hostile_agent(&url, "", 10.0)).unwrap_err();
        assert!(error.contains("larger than"), "{error}");
        // One byte every 0.4 s: the 2 s deadline ends it.
        let (url, _s) = raw_server(
            |_| {
                b"HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n"
                    .iter()
                    .map(|b| vec![*b])
                    .collect()
            },
            std::time::Duration::from_millis(400),
        );
        let started = std::time::Instant::now();
        let error = one_turn(&mut hostile_agent(&url, "", 2.0)).unwrap_err();
        assert!(started.elapsed().as_secs_f64() < 8.0, "{error}");
        assert!(error.contains("deadline"), "{error}");
        // A 1 MB error body is quoted in a few hundred characters.
        let (url, _s) = raw_server(
            |_| {
                let body = "e".repeat(1_000_000);
                vec![
                    format!(
                        "HTTP/1.1 500 Oops\r\nContent-Length: {}\r\n\r\n{body}",
                        body.len()
                    )
                    .into_bytes(),
                ]
            },
            std::time::Duration::ZERO,
        );
        let error = one_turn(&mut hostile_agent(&url, "", 10.0)).unwrap_err();
        assert!(
            error.len() < 1000 && error.contains("more characters"),
            "{}",
            error.len()
        );
    }

    #[test]
    fn reflection_endpoints_and_deadlines_are_checked_before_sending() {
        assert!(
            Url::parse("http://h:1/v1\r\nX-Injected: 1")
                .unwrap_err()
                .contains("control")
        );
        assert!(
            Url::parse("http://user:pw@h:1/v1")
                .unwrap_err()
                .contains("password")
        );
        for timeout_s in [f64::INFINITY, f64::NAN, 1e30, 0.0] {
            let error = LlmAgent::with_typed_endpoint(LlmConfig {
                endpoint: "http://127.0.0.1:9/v1".into(),
                timeout_s,
                ..LlmConfig::default()
            })
            .map(|_| ())
            .unwrap_err();
            assert!(error.contains("llm.timeout_s"), "{error}");
        }
    }
}
