//! Reflection-Bench, clicked through by its labels (scores, trace, human play, the language
//! model against a scripted local server, save and reopen), and its example project's known
//! answers.

use std::path::Path;
use std::time::Duration;

use benchtop::session::Session;
use benchtop_panel_reflection::engine::http::{Message, MockServer};
use egui_kittest::kittest::Queryable as _;

use crate::common;
use crate::examples::Example;

/// The example projects and their known answers.
pub const EXAMPLES: &[Example] = &[Example { project: "reflection-bench", check: check_bench }];

const TASKS: [&str; 7] = ["oddball", "n_back", "reversal", "wcst", "weather", "iowa", "meta_bandit"];

/// The summary's shape and the known answers that hold at any seed.
fn check_scores(scores: &serde_json::Value) {
    for agent in ["oracle", "random", "wsls", "q_learning", "bayesian", "pattern"] {
        let a = &scores[agent];
        for t in TASKS {
            assert!(a[t]["mean"].is_f64() && a[t]["sd"].is_f64(), "{agent}.{t}: {a}");
            let sessions = if t == "oddball" { 3 } else { 2 };
            assert_eq!(a[t]["sessions"], sessions, "{agent}.{t}");
        }
        assert!(a["overall"].is_f64());
    }
    assert_eq!(scores["oracle"]["n_back"]["mean"], 100.0);
    assert_eq!(scores["oracle"]["meta_bandit"]["mean"], 19.0);
    assert_eq!(scores["wsls"]["meta_bandit"]["mean"], 0.0);
    // The learning detector misses the two reversals it learns the period from.
    assert_eq!(scores["pattern"]["meta_bandit"]["mean"], 17.0);
}

fn check_bench(_out: &Path, summary: &serde_json::Value) {
    check_scores(&summary["panels"][0]["summary"]["scores"]);
}

/// The scripted policy of the local model server: "always the right arm".
fn always_right(_: &[Message]) -> String {
    "I choose the right arm.".into()
}

#[test]
fn reflection_panel_scores_traces_plays_asks_a_model_saves_and_reopens() {
    let mut harness = common::harness(Session::new());
    common::open_panel(&mut harness, "Reflection-Bench");
    common::run_until_idle(&mut harness, Duration::from_secs(60));
    let summary = common::first_summary(&harness.state().session);
    check_scores(&summary["scores"]);

    // Bars instead of the radar.
    common::click(&mut harness, "Show the radar (else the bars)");

    // Step through a trace.
    common::click(&mut harness, "Trace");
    common::click(&mut harness, "Step ▶");
    harness.get_by_label_contains("Session score");

    // Play the reversal task by hand: always the right arm. Its belief part is the notes'
    // 43.643, so the score is (43.643 + 100 × mean reward) / 2.
    common::click(&mut harness, "Play");
    common::click(&mut harness, "Start a new game");
    for _ in 0..40 {
        common::click(&mut harness, "right arm");
    }
    harness.get_by_label_contains("Your last game");
    let summary = common::first_summary(&harness.state().session);
    let human = summary["scores"]["human"]["reversal"]["mean"].as_f64().expect("the game is scored");
    let reward_part = 2.0 * human - 43.643_270_791_708_3;
    assert!(reward_part > 0.0 && reward_part <= 100.0, "{human}");
    assert!((reward_part * 40.0 / 100.0 - (reward_part * 40.0 / 100.0).round()).abs() < 1e-6, "{human}");

    let dir = tempfile::tempdir().expect("temporary folder");
    common::save_and_reopen(&mut harness, &dir.path().join("reflection.ron"));
}

#[test]
fn reflection_panel_runs_a_model_on_a_local_server_with_a_transcript() {
    // The language model, against a scripted server on 127.0.0.1, on the reversal task only;
    // the project points the endpoint at it, as a user would in the Language model tab.
    let server = MockServer::start(always_right).expect("local server");
    let text = format!(
        r#"(format_version: 1, panels: [(id: (1), state: Reflection((
            params: (agents: ["wsls"], tasks: [Reversal], llm: (endpoint: "{}", model: "scripted")),
            view: (tab: Model),
        )))])"#,
        server.url
    );
    let mut harness = common::harness(common::session_from(&text, "reflection-model.ron"));
    common::run_until_idle(&mut harness, Duration::from_secs(60));
    // The project named the endpoint: it is shown and unused until the user approves it.
    common::click(&mut harness, "Run the model on the ticked tasks");
    common::run_until_idle(&mut harness, Duration::from_secs(60));
    assert!(
        common::first_summary(&harness.state().session)["scores"]
            .get("llm:scripted")
            .is_none(),
        "an unapproved endpoint must not be used"
    );
    common::click(&mut harness, "Approve for this session");
    common::click(&mut harness, "Run the model on the ticked tasks");
    common::run_until_idle(&mut harness, Duration::from_secs(60));
    // The transcript view: every reply of both sessions, each with its extracted answer.
    assert_eq!(harness.query_all_by_label("model: I choose the right arm.").count(), 80);
    assert_eq!(harness.query_all_by_label("extracted (rule): right arm").count(), 80);
    let summary = common::first_summary(&harness.state().session);
    let model = &summary["scores"]["llm:scripted"]["reversal"];
    assert_eq!(model["sessions"], 2, "{summary}");
    // Always-right: the belief part is 43.643 in both sessions; the reward part is a count.
    let reward_part = 2.0 * model["mean"].as_f64().expect("model scored") - 43.643_270_791_708_3;
    assert!(reward_part > 0.0 && reward_part <= 100.0, "{model}");
    assert!((reward_part * 0.8 - (reward_part * 0.8).round()).abs() < 1e-6, "{model}");
    let dir = tempfile::tempdir().expect("temporary folder");
    common::save_and_reopen(&mut harness, &dir.path().join("reflection.ron"));
}

/// A 2-back oracle read from the chat text, as a model server would answer.
fn nback_oracle(messages: &[Message]) -> String {
    let letters: Vec<char> = messages
        .iter()
        .filter(|m| m.role == "user")
        .filter_map(|m| m.content.split("Current character is: ").nth(1)?.chars().next())
        .collect();
    let k = letters.len();
    if k <= 2 {
        "Not available".into()
    } else if letters[k - 1] == letters[k - 3] {
        "Yes".into()
    } else {
        "No".into()
    }
}

#[test]
fn reflection_cli_scores_scripted_and_model_agents_with_transcripts() {
    let out = common::json_output(
        &["reflect", "--agent", "pattern_2", "--task", "meta_bandit", "--sessions", "3"],
        true,
    );
    assert_eq!(out["score"], 19.0, "{out}");
    assert_eq!(out["scores"]["meta_bandit"]["sessions"], 3);
    let wsls = common::json_output(&["reflect", "--agent", "wsls", "--task", "meta_bandit"], true);
    assert_eq!(wsls["score"], 0.0, "{wsls}");

    // A model behind a scripted server on 127.0.0.1: the 2-back oracle's 100, with a transcript.
    let server = MockServer::start(nback_oracle).expect("local server");
    let dir = tempfile::tempdir().expect("temporary folder");
    let transcript = dir.path().join("transcript.json");
    let transcript_arg = transcript.display().to_string();
    let model = common::json_output(
        &[
            "reflect", "--endpoint", &server.url, "--model", "scripted", "--task", "n_back",
            "--sessions", "1", "--transcript", &transcript_arg,
        ],
        true,
    );
    assert_eq!(model["agent"], "llm:scripted");
    assert_eq!(model["score"], 100.0, "{model}");
    let log: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&transcript).expect("transcript")).expect("JSON");
    assert_eq!(log.as_array().expect("exchanges").len(), 52);
    assert_eq!(log[0]["extracted"], "Not available");

    // Bad names are refused with the accepted ones.
    let bad = common::benchtop().args(["reflect", "--task", "poker"]).output().expect("runs");
    assert!(!bad.status.success());
    assert!(String::from_utf8_lossy(&bad.stderr).contains("meta_bandit"));
}

#[test]
fn reflection_a_shared_project_cannot_send_the_key_to_its_endpoint() {
    // A project from someone else points the model at their server and asks `benchtop run`
    // to run it; the user's key is in the environment.
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("a port");
    listener.set_nonblocking(true).expect("non-blocking");
    let address = listener.local_addr().expect("address");
    let dir = tempfile::tempdir().expect("temporary folder");
    let project = dir.path().join("shared.ron");
    std::fs::write(
        &project,
        format!(
            r#"(format_version: 1, panels: [(id: (1), state: Reflection((
                params: (agents: ["wsls"], tasks: [Reversal],
                         llm: (endpoint: "http://{address}/v1", model: "m")),
                headless: (table: false, model: true),
            )))])"#
        ),
    )
    .expect("project written");
    let key = "sk-benchtop-shared-project-key";
    let output = common::benchtop()
        .args(["run", &project.display().to_string(), "--out"])
        .arg(dir.path().join("out"))
        .env("BENCHTOP_LLM_API_KEY", key)
        .env_remove("BENCHTOP_LLM_APPROVED_HOSTS")
        .env("XDG_CONFIG_HOME", dir.path().join("config"))
        .output()
        .expect("runs");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!output.status.success(), "{stderr}");
    assert!(stderr.contains("approve") && !stderr.contains(key), "{stderr}");
    // Nothing connected to the project's server.
    assert!(listener.accept().is_err(), "the project's endpoint was contacted");
}
