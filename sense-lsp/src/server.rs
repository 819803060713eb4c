//! The server loop: documents by URI, requests answered from their analysis.

use crate::document::{Document, uri_to_path};
use crate::{features, navigate, references, signature, transport};
use lsp_server::{Connection, ErrorCode, Message, Notification, Request, Response};
use lsp_types::notification::{
    DidChangeTextDocument, DidCloseTextDocument, DidOpenTextDocument, Notification as _,
    PublishDiagnostics,
};
use lsp_types::request::{
    Completion, DocumentSymbolRequest, Formatting, GotoDefinition, HoverRequest, References,
    Rename, Request as _, SignatureHelpRequest,
};
use lsp_types::{
    CompletionOptions, HoverProviderCapability, OneOf, PublishDiagnosticsParams,
    ServerCapabilities, ServerInfo, TextDocumentSyncCapability, TextDocumentSyncKind, Uri,
};
use std::collections::HashMap;

/// An open document: the text as the client has it, and its analysis.
struct Open {
    text: String,
    doc: Document,
    version: i32,
}

/// The server's state: the open documents by URI.
#[derive(Default)]
struct Server {
    open: HashMap<String, Open>,
}

/// Serves LSP on stdio until the client says `exit`; returns the exit
/// status (0 after a clean `shutdown` then `exit`, 1 otherwise).
pub fn serve() -> i32 {
    let (connection, threads) = transport::stdio();
    let served = run(&connection);
    drop(connection);
    // A transport error explains a failed run better than its symptom
    // (a closed channel), so it is reported first.
    let transport = threads.join();
    match (transport, served) {
        (Err(e), _) => {
            eprintln!("sense lsp: {e}");
            1
        }
        (Ok(()), Err(e)) => {
            eprintln!("sense lsp: {e}");
            1
        }
        (Ok(()), Ok(())) => 0,
    }
}

fn capabilities() -> ServerCapabilities {
    ServerCapabilities {
        text_document_sync: Some(TextDocumentSyncCapability::Kind(TextDocumentSyncKind::FULL)),
        hover_provider: Some(HoverProviderCapability::Simple(true)),
        definition_provider: Some(OneOf::Left(true)),
        document_symbol_provider: Some(OneOf::Left(true)),
        completion_provider: Some(CompletionOptions {
            trigger_characters: Some(vec![".".to_string()]),
            ..Default::default()
        }),
        document_formatting_provider: Some(OneOf::Left(true)),
        references_provider: Some(OneOf::Left(true)),
        rename_provider: Some(OneOf::Left(true)),
        signature_help_provider: Some(lsp_types::SignatureHelpOptions {
            trigger_characters: Some(vec!["(".to_string(), ",".to_string()]),
            retrigger_characters: None,
            work_done_progress_options: Default::default(),
        }),
        ..Default::default()
    }
}

fn run(connection: &Connection) -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
    let init = serde_json::json!({
        "capabilities": capabilities(),
        "serverInfo": ServerInfo {
            name: "sense".to_string(),
            version: Some(format!(
                "{} (Sense language {})",
                env!("CARGO_PKG_VERSION"),
                sense_syntax::LANGUAGE_VERSION
            )),
        },
    });
    let (id, _params) = connection.initialize_start()?;
    connection.initialize_finish(id, init)?;
    let mut server = Server::default();
    for msg in &connection.receiver {
        match msg {
            Message::Request(req) => {
                if connection.handle_shutdown(&req)? {
                    return Ok(());
                }
                let resp = server.request(req);
                connection.sender.send(Message::Response(resp))?;
            }
            Message::Notification(note) => {
                if let Some(publish) = server.notification(note) {
                    connection.sender.send(Message::Notification(publish))?;
                }
            }
            Message::Response(_) => {}
        }
    }
    Ok(())
}

/// The directory of a `file:` document (imports resolve against it).
fn doc_dir(uri: &Uri) -> Option<std::path::PathBuf> {
    uri_to_path(uri.as_str()).and_then(|p| p.parent().map(std::path::Path::to_path_buf))
}

/// A result as JSON (these types always serialise).
fn json(v: impl serde::Serialize) -> serde_json::Value {
    serde_json::to_value(v).unwrap_or(serde_json::Value::Null)
}

/// The error response to a request that could not be carried out:
/// `cannot WHAT: WHY`.
fn failed(req: &Request, what: &str, why: impl std::fmt::Display) -> Response {
    Response::new_err(
        req.id.clone(),
        ErrorCode::RequestFailed as i32,
        format!("cannot {what}: {why}"),
    )
}

/// A request's parameters, or the error response for bad ones.
fn params<P: serde::de::DeserializeOwned>(req: &Request) -> Result<P, Response> {
    serde_json::from_value(req.params.clone()).map_err(|e| {
        Response::new_err(
            req.id.clone(),
            ErrorCode::InvalidParams as i32,
            e.to_string(),
        )
    })
}

impl Server {
    fn doc(&self, uri: &Uri) -> Option<&Open> {
        self.open.get(uri.as_str())
    }

    /// The answer to a request about one position of a document (hover,
    /// signature help): `answer` given the document's analysis, its
    /// folder and the position; null for a document that is not open.
    fn at_position<R: serde::Serialize>(
        &self,
        req: &Request,
        answer: impl FnOnce(&Document, Option<&std::path::Path>, lsp_types::Position) -> Option<R>,
    ) -> Result<serde_json::Value, Response> {
        // Every such request's parameters flatten these in.
        let at: lsp_types::TextDocumentPositionParams = params(req)?;
        let dir = doc_dir(&at.text_document.uri);
        let open = self.doc(&at.text_document.uri);
        Ok(json(
            open.and_then(|o| answer(&o.doc, dir.as_deref(), at.position)),
        ))
    }

    fn request(&mut self, req: Request) -> Response {
        match self.answer(&req) {
            Ok(resp) | Err(resp) => resp,
        }
    }

    fn answer(&mut self, req: &Request) -> Result<Response, Response> {
        let ok = |v: serde_json::Value| Response {
            id: req.id.clone(),
            result: Some(v),
            error: None,
        };
        match req.method.as_str() {
            HoverRequest::METHOD => Ok(ok(self.at_position(req, navigate::hover)?)),
            GotoDefinition::METHOD => {
                let p: lsp_types::GotoDefinitionParams = params(req)?;
                let at = &p.text_document_position_params;
                let uri = &at.text_document.uri;
                let dir = doc_dir(uri);
                let r = self
                    .doc(uri)
                    .and_then(|o| navigate::definition(&o.doc, uri, dir.as_deref(), at.position));
                Ok(ok(json(r.map(lsp_types::GotoDefinitionResponse::Scalar))))
            }
            DocumentSymbolRequest::METHOD => {
                let p: lsp_types::DocumentSymbolParams = params(req)?;
                let r = self
                    .doc(&p.text_document.uri)
                    .map(|o| lsp_types::DocumentSymbolResponse::Nested(features::symbols(&o.doc)));
                Ok(ok(json(r)))
            }
            Completion::METHOD => {
                let p: lsp_types::CompletionParams = params(req)?;
                let at = &p.text_document_position;
                let uri = &at.text_document.uri;
                let dir = doc_dir(uri);
                let r = self.doc(uri).map(|o| {
                    lsp_types::CompletionResponse::Array(features::completion(
                        &o.doc,
                        dir.as_deref(),
                        at.position,
                    ))
                });
                Ok(ok(json(r)))
            }
            References::METHOD => {
                let p: lsp_types::ReferenceParams = params(req)?;
                let at = &p.text_document_position;
                let uri = &at.text_document.uri;
                let r = self.doc(uri).map(|o| {
                    references::references(&o.doc, uri, at.position, p.context.include_declaration)
                });
                Ok(ok(json(r)))
            }
            Rename::METHOD => {
                let p: lsp_types::RenameParams = params(req)?;
                let at = &p.text_document_position;
                let uri = &at.text_document.uri;
                let Some(o) = self.doc(uri) else {
                    return Ok(ok(serde_json::Value::Null));
                };
                let edit = references::rename(&o.doc, uri, at.position, &p.new_name);
                edit.map(|edit| ok(json(edit)))
                    .map_err(|e| failed(req, "rename", e))
            }
            SignatureHelpRequest::METHOD => {
                Ok(ok(self.at_position(req, signature::signature_help)?))
            }
            Formatting::METHOD => {
                let p: lsp_types::DocumentFormattingParams = params(req)?;
                let Some(o) = self.doc(&p.text_document.uri) else {
                    return Ok(ok(serde_json::Value::Null));
                };
                let edits = features::format(&o.doc, &o.text);
                edits
                    .map(|edits| ok(json(edits)))
                    .map_err(|e| failed(req, "format", e))
            }
            _ => Err(Response::new_err(
                req.id.clone(),
                ErrorCode::MethodNotFound as i32,
                format!("unsupported request {}", req.method),
            )),
        }
    }

    /// Handles a notification; returns the diagnostics to publish, if any.
    fn notification(&mut self, note: Notification) -> Option<Notification> {
        match note.method.as_str() {
            DidOpenTextDocument::METHOD => {
                let p: lsp_types::DidOpenTextDocumentParams =
                    serde_json::from_value(note.params).ok()?;
                let d = p.text_document;
                Some(self.update(d.uri, d.text, d.version))
            }
            DidChangeTextDocument::METHOD => {
                let p: lsp_types::DidChangeTextDocumentParams =
                    serde_json::from_value(note.params).ok()?;
                // Full sync: the last change holds the whole text.
                let text = p.content_changes.into_iter().last()?.text;
                Some(self.update(p.text_document.uri, text, p.text_document.version))
            }
            DidCloseTextDocument::METHOD => {
                let p: lsp_types::DidCloseTextDocumentParams =
                    serde_json::from_value(note.params).ok()?;
                self.open.remove(p.text_document.uri.as_str());
                // Clear what was published for it.
                Some(publish(p.text_document.uri, Vec::new(), None))
            }
            _ => None,
        }
    }

    fn update(&mut self, uri: Uri, text: String, version: i32) -> Notification {
        let name = uri_to_path(uri.as_str())
            .map_or_else(|| uri.as_str().to_string(), |p| p.display().to_string());
        let previous = self.open.get(uri.as_str()).map(|o| &o.doc);
        let doc = Document::after(&name, &text, previous);
        let diagnostics = features::diagnostics(&doc, doc_dir(&uri).as_deref());
        self.open
            .insert(uri.as_str().to_string(), Open { text, doc, version });
        let version = self.open.get(uri.as_str()).map(|o| o.version);
        publish(uri, diagnostics, version)
    }
}

fn publish(
    uri: Uri,
    diagnostics: Vec<lsp_types::Diagnostic>,
    version: Option<i32>,
) -> Notification {
    Notification::new(
        PublishDiagnostics::METHOD.to_string(),
        PublishDiagnosticsParams {
            uri,
            diagnostics,
            version,
        },
    )
}
