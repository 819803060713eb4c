//! Signatures and one-line descriptions of the builtins, for hover and
//! completion details.
//!
//! The list of builtins itself comes from the runtime
//! (`sense_agents::kinds::builtins`); this table only adds the words.
//! A test checks that the two name the same functions, so a new builtin
//! cannot ship without its line here.

/// `(name, signature, description)` for every builtin.
pub const BUILTIN_DOCS: &[(&str, &str, &str)] = &[
    (
        "print",
        "print(values…)",
        "Writes each value as `str` shows it, separated by spaces, then a newline; returns nil.",
    ),
    (
        "len",
        "len(x) -> Int",
        "The number of characters of a String or elements of an Array.",
    ),
    (
        "range",
        "range(stop) / range(start, stop) / range(start, stop, step) -> Array<Int>",
        "A new Array of Ints from start (inclusive) to stop (exclusive), like Python's range.",
    ),
    (
        "str",
        "str(x) -> String",
        "The text `print` would write for x.",
    ),
    (
        "int",
        "int(x) -> Int",
        "Converts a Float (truncating toward zero), Bool or base-10 String to an Int.",
    ),
    (
        "float",
        "float(x) -> Float",
        "Converts an Int, Bool or numeric String (exponents, inf and nan allowed) to a Float.",
    ),
    (
        "type_of",
        "type_of(x) -> String",
        "The name of x's type: \"Int\", \"String\", \"Array\", \"Agent\", …",
    ),
    (
        "push",
        "push(array, value) -> Array",
        "Appends value to array in place and returns the same array.",
    ),
    (
        "assert",
        "assert(condition) / assert(condition, message)",
        "Raises a runtime error (message, or \"assertion failed\") when condition is falsy.",
    ),
    (
        "start",
        "start(agent) -> Agent",
        "Runs an agent's body until it pauses or completes (async agents start in the background).",
    ),
    (
        "pause",
        "pause() / pause(reason)",
        "Inside an agent: stops it, keeping its locals and call stack; returns the value given to resume.",
    ),
    (
        "resume",
        "resume(agent) / resume(agent, value) -> Agent",
        "Continues a paused agent; its pause() call returns value (nil by default).",
    ),
    (
        "ask_human",
        "ask_human(question, timeout?) -> String",
        "Inside an agent: pauses with the question for a person; outside one: reads a line from stdin.",
    ),
    (
        "send",
        "send(agent, message)",
        "Puts message in the agent's mailbox.",
    ),
    (
        "receive",
        "receive() / receive(timeout)",
        "Inside an agent: the next message of its mailbox, or nil after timeout seconds.",
    ),
    (
        "await",
        "await(agent_or_future)",
        "Waits for an async agent to settle or a future to finish; returns the agent or the future's value.",
    ),
    (
        "inference",
        "inference(provider, model_id?, …labels) -> Model",
        "A model handle (\"mock\" for tests); bind it with `model NAME = inference(…)`.",
    ),
    (
        "ask",
        "ask(prompt) -> Answer",
        "Asks the configured model (`set delegation = …`) and returns its Answer.",
    ),
    (
        "ask_with_memory",
        "ask_with_memory(prompt, memory) -> Answer",
        "Like ask, with the memory's entries prepended to the prompt.",
    ),
    (
        "ask_with_tools",
        "ask_with_tools(prompt, tools) -> Answer",
        "Like ask, letting the model call the given tools and skills.",
    ),
    (
        "skill",
        "skill(name, description, tools) -> Skill",
        "Bundles described tools under one name for ask_with_tools.",
    ),
    (
        "connect_mcp",
        "connect_mcp(name, command, args, capability?)",
        "Starts an MCP server over stdio and exposes its tools.",
    ),
    (
        "set_budget",
        "set_budget(agent, tokens: Int?, cost: Float?)",
        "Gives an agent a token or cost budget: once spent, it pauses (kind budget) before its next model call.",
    ),
    (
        "audit_log",
        "audit_log() -> Array<String>",
        "One line per action prepared, verified, approved, committed or rolled back, oldest first.",
    ),
    (
        "mock_model",
        "mock_model(…)",
        "Removed: raises an error pointing to inference(\"mock\", …).",
    ),
    (
        "verify",
        "verify(action)",
        "Removed: raises an error pointing to action.verify().",
    ),
    (
        "approve",
        "approve(action)",
        "Removed: raises an error pointing to action.approve().",
    ),
    (
        "rollback",
        "rollback(action)",
        "Removed: raises an error pointing to action.rollback().",
    ),
];

/// The signature and description of builtin `name`.
pub fn builtin_doc(name: &str) -> Option<(&'static str, &'static str)> {
    BUILTIN_DOCS
        .iter()
        .find(|(n, _, _)| *n == name)
        .map(|&(_, sig, doc)| (sig, doc))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_builtin_has_exactly_one_line() {
        let natives = crate::names::builtins();
        let mut documented: Vec<&str> = BUILTIN_DOCS.iter().map(|(n, _, _)| *n).collect();
        documented.sort();
        let natives: Vec<&str> = natives.iter().map(String::as_str).collect();
        assert_eq!(documented, natives);
    }
}
