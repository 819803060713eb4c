//! Streamed answers of running instances (`ask(prompt, on_text: f)`),
//! relayed live: each run's runtime hands its pieces here
//! ([`Texts::sink`]), and every open events stream of that instance gets
//! them as `event: text` messages (see `events.rs`). Pieces are not
//! stored: a client that connects later sees the instance's state and
//! output, not the pieces it missed. A slow client drops pieces rather
//! than holding up the run (the channel keeps the last [`BACKLOG`]).

use sense_agents::kinds::model::ModelText;
use serde_json::{Value as Json, json};

/// Pieces kept for clients that are behind.
const BACKLOG: usize = 256;

/// The relay: one broadcast channel for every instance of this process.
pub struct Texts(tokio::sync::broadcast::Sender<(String, Json)>);

impl Default for Texts {
    fn default() -> Self {
        Texts(tokio::sync::broadcast::channel(BACKLOG).0)
    }
}

impl Texts {
    /// What a run of instance `id` gives [`Runtime::on_model_text`](sense_agents::Runtime::on_model_text).
    pub fn sink(&self, id: &str) -> impl FnMut(&ModelText<'_>) + Send + 'static {
        let (tx, id) = (self.0.clone(), id.to_string());
        move |t: &ModelText<'_>| {
            // No listener is fine: nobody is watching this instance.
            let _ = tx.send((
                id.clone(),
                json!({"id": &id, "agent": t.agent, "model": t.model, "text": t.text}),
            ));
        }
    }

    /// Pieces from now on, of every instance.
    pub fn subscribe(&self) -> tokio::sync::broadcast::Receiver<(String, Json)> {
        self.0.subscribe()
    }
}
