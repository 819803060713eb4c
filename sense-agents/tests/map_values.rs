//! Issue 23: maps cross the host boundary (`HostValue::Map`, ordered
//! entries) both ways, survive a snapshot, and a map inside itself reads
//! as an elision instead of recursing.
// Test code may unwrap, panic and index (the workspace's restriction
// lints forbid it in library code).
#![allow(clippy::restriction)]

mod common;

use common::{loaded, run_main, runtime};
use sense_agents::{HostValue, Runtime};
use std::sync::{Arc, Mutex};

#[test]
fn a_map_comes_out_with_its_entries_in_order() {
    let (rt, _) = loaded("m = {\"b\": 1, 2: [true], false: {}}\nm[\"a\"] = nil\n");
    let m = rt.global("m").unwrap();
    assert_eq!(
        m,
        HostValue::Map(vec![
            (HostValue::from("b"), HostValue::Int(1)),
            (
                HostValue::Int(2),
                HostValue::List(vec![HostValue::Bool(true)])
            ),
            (HostValue::Bool(false), HostValue::Map(vec![])),
            (HostValue::from("a"), HostValue::Nil),
        ])
    );
    assert_eq!(m.type_name(), "Map");
    assert_eq!(m.to_string(), "{b: 1, 2: [true], false: {}, a: nil}");
    assert_eq!(m.get("b"), Some(&HostValue::Int(1)));
}

#[test]
fn a_host_map_goes_in_as_a_map() {
    let (mut rt, out) = runtime();
    let v = HostValue::Map(vec![
        (HostValue::from("z"), HostValue::Int(1)),
        (HostValue::from("a"), HostValue::from("two")),
    ]);
    rt.set_global("cfg", v).unwrap();
    run_main(
        &mut rt,
        "print(type_of(cfg), cfg, cfg[\"a\"], len(cfg))\ncfg[\"n\"] = 3\nprint(cfg)\n",
    );
    assert_eq!(
        out.lock().unwrap().as_str(),
        "Map {z: 1, a: two} two 2\n{z: 1, a: two, n: 3}\n"
    );
}

#[test]
fn a_host_map_with_a_bad_key_is_refused() {
    let (mut rt, _) = runtime();
    let v = HostValue::Map(vec![(HostValue::Float(1.5), HostValue::Int(1))]);
    let err = rt.set_global("cfg", v).unwrap_err().to_string();
    assert!(
        err.contains("map keys must be String, Int or Bool"),
        "{err}"
    );
}

#[test]
fn a_map_inside_itself_is_elided() {
    let (rt, _) = loaded("m = {}\nm[\"self\"] = m\n");
    let m = rt.global("m").unwrap();
    assert_eq!(m.to_string(), "{self: {...}}");
}

#[test]
fn a_map_survives_a_snapshot() {
    let (rt, _) = loaded("m = {\"k\": [1, 2], 3: \"x\"}\nm[\"m\"] = {\"in\": true}\n");
    let bytes = rt.snapshot().unwrap();
    let mut back = Runtime::restore(&bytes).unwrap();
    let out = Arc::new(Mutex::new(String::new()));
    let sink = out.clone();
    back.set_output(move |s| sink.lock().unwrap().push_str(s));
    back.run_source("n.sns", "print(m, m[\"m\"][\"in\"], \"k\" in m)\n")
        .unwrap();
    assert_eq!(
        out.lock().unwrap().as_str(),
        "{k: [1, 2], 3: x, m: {in: true}} true true\n"
    );
}
