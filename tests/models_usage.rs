//! Token usage, cost and budgets that pause (issue 25), against loopback
//! servers answering as the Chat Completions and Messages APIs document,
//! `usage` objects included (OpenAI's cached prompt tokens, Anthropic's
//! cache reads and writes).

use sense_testkit::loopback::{Loopback, Reply, anthropic_env, openai_env, outcome, program, text};
use serde_json::json;

/// A Chat Completions answer whose `usage` reports `cached` of the
/// prompt's tokens read from the cache.
/// A loopback Chat Completions API giving one answer per entry of
/// `answers`: (text, prompt tokens, completion tokens, cached tokens).
fn openai_answering(answers: &[(&str, u64, u64, u64)]) -> Loopback {
    let replies = answers
        .iter()
        .map(|&(content, prompt, completion, cached)| {
            Reply::json(200, openai_text(content, prompt, completion, cached))
        })
        .collect();
    Loopback::start(replies)
}

fn openai_text(content: &str, prompt: u64, completion: u64, cached: u64) -> serde_json::Value {
    json!({
        "id": "chatcmpl-usage",
        "object": "chat.completion",
        "created": 1741569952,
        "model": "gpt-4o-2024-08-06",
        "choices": [{
            "index": 0,
            "message": {"role": "assistant", "content": content, "refusal": null},
            "logprobs": null,
            "finish_reason": "stop"
        }],
        "usage": {
            "prompt_tokens": prompt,
            "completion_tokens": completion,
            "total_tokens": prompt + completion,
            "prompt_tokens_details": {"cached_tokens": cached, "audio_tokens": 0},
            "completion_tokens_details": {"reasoning_tokens": 0}
        }
    })
}

/// `sense ARGS…` with `env`.
fn sense(args: &[&str], env: &[(&'static str, String)]) -> std::process::Output {
    sense_testkit::run_sense!(args, env)
}

fn run(file: &std::path::Path, env: &[(&'static str, String)]) -> (String, String, bool) {
    outcome(&sense(&["run", file.to_str().expect("utf-8 path")], env))
}

#[test]
fn openai_usage_and_cost_count_for_the_model_and_the_agent() {
    let server = openai_answering(&[("First.", 1200, 80, 1024), ("Second.", 300, 20, 0)]);
    let file = program(
        "openai_usage",
        r#"model m = inference("openai", "gpt-4o", price_in: 2.5, price_out: 10.0, price_cached: 1.25)
set delegation = m
agent worker:
    ask("one")
    ask("two")
start(worker)
u = m.usage
print(u["calls"], u["input_tokens"], u["output_tokens"], u["cached_tokens"], u["total_tokens"])
print(int(u["cost"] * 1000000 + 0.5))
print(worker.usage == m.usage)
print(audit_log())
"#,
    );
    let (out, err, ok) = run(&file, &openai_env(&server));
    assert!(ok, "stderr: {err}");
    // (1500 - 1024) fresh at 2.5, 1024 cached at 1.25, 100 out at 10.0,
    // per million tokens: 1190 + 1280 + 1000 millionths.
    assert_eq!(
        out,
        "2 1500 100 1024 1600\n3470\ntrue\n\
         [[line 4] model 'm' -> called (via agent:worker), [line 5] model 'm' -> called (via agent:worker)]\n"
    );
    assert_eq!(server.seen().len(), 2);
}

#[test]
fn anthropic_cache_reads_and_writes_count_as_input() {
    let server = Loopback::start(vec![Reply::json(
        200,
        json!({
            "id": "msg_usage",
            "type": "message",
            "role": "assistant",
            "content": [{"type": "text", "text": "Cached."}],
            "model": "claude-sonnet-4-5",
            "stop_reason": "end_turn",
            "stop_sequence": null,
            "usage": {
                "input_tokens": 50,
                "output_tokens": 30,
                "cache_read_input_tokens": 1000,
                "cache_creation_input_tokens": 200
            }
        }),
    )]);
    let file = program(
        "anthropic_usage",
        r#"model c = inference("anthropic", price_in: 3.0, price_out: 15.0)
c.ask("hi")
u = c.usage
print(u["input_tokens"], u["output_tokens"], u["cached_tokens"], u["cache_write_tokens"])
print(int(u["cost"] * 1000000 + 0.5))
"#,
    );
    let env = anthropic_env(&server);
    let (out, err, ok) = run(&file, &env);
    assert!(ok, "stderr: {err}");
    // 1250 input tokens at 3.0 (no cached price: the input price), 30 at 15.0.
    assert_eq!(out, "1250 30 1000 200\n4200\n");
}

/// A token budget pauses the agent before the call that would exceed it;
/// the state file holds the call back; `sense resume` with nil leaves it
/// paused without a request, with a new budget makes the call against
/// the API, in a new process.
#[test]
fn budget_pause_survives_start_show_and_resume() {
    let state = std::env::temp_dir().join(format!("sense-budget-{}.state", std::process::id()));
    let _ = std::fs::remove_file(&state);
    let s = state.to_str().expect("utf-8 path");
    let file = program(
        "budget_worker",
        r#"model m = inference("openai", price_in: 2.0, price_out: 8.0)
set delegation = m
agent worker:
    draft = ask("Draft it")
    final = ask("Polish: " + draft.value)
    print(final.value)
    return final.value
set_budget(worker, tokens: 100)
"#,
    );
    let f = file.to_str().expect("utf-8 path");
    let first = openai_answering(&[("A draft.", 90, 30, 0)]);
    let out = sense(&["start", f, "worker", "--state", s], &openai_env(&first));
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(
        text(&out.stdout),
        "paused: token budget reached: 120 of 100 tokens spent \
         (1 call, 120 tokens (90 in, 30 out), cost 0.00042)\n"
    );
    assert_eq!(first.seen().len(), 1, "the second call waits for a budget");
    drop(first);

    let shown = sense(&["show", s], &[]);
    let shown = text(&shown.stdout);
    assert!(shown.contains("paused (budget)"), "{shown}");
    assert!(
        shown.contains(
            "    usage: 1 call, 120 tokens (90 in, 30 out), cost 0.00042; budget: 100 tokens\n"
        ),
        "{shown}"
    );

    let idle = Loopback::start(vec![]);
    let out = sense(&["resume", s], &openai_env(&idle));
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(text(&out.stdout).starts_with("paused: token budget reached"));
    assert!(idle.seen().is_empty(), "still over budget: no request");
    drop(idle);

    let second = openai_answering(&[("Polished.", 40, 10, 0)]);
    let out = sense(&["resume", s, "500"], &openai_env(&second));
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(text(&out.stdout), "Polished.\ncompleted\n");
    let seen = second.seen();
    assert_eq!(seen.len(), 1);
    assert_eq!(
        seen[0].body["messages"],
        json!([{"role": "user", "content": "Polish: A draft."}])
    );
    let shown = text(&sense(&["show", s], &[]).stdout);
    assert!(
        shown.contains(
            "usage: 2 calls, 170 tokens (130 in, 40 out), cost 0.00058; budget: 500 tokens"
        ),
        "{shown}"
    );
    let _ = std::fs::remove_file(&state);
}

/// A cost budget, a budget of the agent that started the one calling,
/// and the pause seen from Sense code (`resume(a, budget)`).
#[test]
fn a_parents_cost_budget_pauses_its_child_in_sense_run() {
    let server = openai_answering(&[("one", 1000, 0, 0), ("two", 1000, 0, 0)]);
    let file = program(
        "budget_parent",
        r#"model m = inference("openai", price_in: 1000.0)
set delegation = m
agent child:
    a = ask("first")
    b = ask("second")
    return b.value
agent boss:
    start(child)
    return child.status
set_budget(boss, cost: 1.0)
print(start(boss), boss.status, child.status)
print(child.pause_reason)
print(boss.usage["cost"], child.usage["cost"])
resume(child, {"tokens": 5000})
print(child.status, child.pause_reason)
set_budget(boss, cost: nil)
resume(child)
print(child.status, boss.usage["calls"])
"#,
    );
    let (out, err, ok) = run(&file, &openai_env(&server));
    assert!(ok, "stderr: {err}");
    assert_eq!(
        out,
        "<agent boss status=completed> completed paused\n\
         cost budget of agent 'boss' reached: 1.0 of 1.0 spent (1 call, 1000 tokens (1000 in, 0 out), cost 1.0)\n\
         1.0 1.0\n\
         paused cost budget of agent 'boss' reached: 1.0 of 1.0 spent (1 call, 1000 tokens (1000 in, 0 out), cost 1.0)\n\
         completed 2\n"
    );
    assert_eq!(server.seen().len(), 2);
}
