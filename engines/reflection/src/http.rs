//! The HTTP side of the language-model agent: endpoint addresses checked before anything is
//! sent ([`Url`]), one POST with a total deadline and a bounded reply over ureq ([`post_json`]),
//! and a tiny one-thread server for tests that answers chat completions with a scripted policy
//! ([`MockServer`]).
//!
//! The server is someone else's: a reply larger than [`MAX_REPLY_BYTES`] is refused, a request
//! that takes longer than its deadline (trickling bytes included) fails, redirects are not
//! followed, and an error body is cut to [`MAX_ERROR_BODY_CHARS`] characters. Plain `http://`
//! only (a model server on this machine or the local network: llama.cpp, vLLM, Ollama); no TLS
//! in this build.

use std::io::{BufRead as _, BufReader, Read as _, Write as _};
use std::net::{TcpListener, TcpStream};
use std::time::Duration;

/// The largest reply read from an endpoint (bytes).
pub const MAX_REPLY_BYTES: u64 = 4 * 1024 * 1024;

/// The longest piece of an error body quoted in a message (characters).
pub const MAX_ERROR_BODY_CHARS: usize = 300;

/// The longest endpoint address accepted (characters).
const MAX_URL_CHARS: usize = 2048;

/// A parsed and checked `http://host:port/path` address.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Url {
    /// Host name or address.
    pub host: String,
    /// Port (80 when not given).
    pub port: u16,
    /// Path, starting with `/`.
    pub path: String,
}

impl Url {
    /// Parses and checks an address: `http://` only (no TLS in this client), a host, an optional
    /// port, no user name or password, no control characters or spaces (they could inject
    /// request headers), at most 2,048 characters.
    pub fn parse(url: &str) -> Result<Self, String> {
        let url = url.trim();
        if url.len() > MAX_URL_CHARS {
            return Err(format!(
                "the endpoint address has {} characters; at most {MAX_URL_CHARS} are accepted",
                url.len()
            ));
        }
        if let Some(c) = url.chars().find(|c| c.is_control() || c.is_whitespace()) {
            return Err(format!(
                "`{}`: the endpoint address holds a control character or space ({:?})",
                url.escape_debug(),
                c
            ));
        }
        if url.starts_with("https://") {
            return Err(format!(
                "`{url}`: https is not supported by the built-in client; use a local http:// \
                 endpoint (or a proxy)"
            ));
        }
        let Some(rest) = url.strip_prefix("http://") else {
            return Err(format!("`{url}`: the endpoint must start with http://"));
        };
        let (authority, path) = match rest.find(['/', '?', '#']) {
            Some(i) if rest[i..].starts_with('/') => (&rest[..i], rest[i..].to_owned()),
            Some(_) => {
                return Err(format!(
                    "`{url}`: the address needs a path before `?` or `#`"
                ));
            }
            None => (rest, "/".to_owned()),
        };
        if authority.contains('@') {
            return Err(format!(
                "`{url}`: a user name or password in the address is refused (the key comes \
                 from BENCHTOP_LLM_API_KEY)"
            ));
        }
        let (host, port) = match authority.rsplit_once(':') {
            Some((h, p)) => {
                let port = p
                    .parse::<u16>()
                    .map_err(|_| format!("`{url}`: bad port `{p}`"))?;
                (h.to_owned(), port)
            }
            None => (authority.to_owned(), 80),
        };
        if host.is_empty() {
            return Err(format!("`{url}`: no host"));
        }
        Ok(Self { host, port, path })
    }

    /// `host:port`: what the user approves to receive the key.
    pub fn origin(&self) -> String {
        format!("{}:{}", self.host, self.port)
    }

    /// The address as text.
    pub fn text(&self) -> String {
        format!("http://{}:{}{}", self.host, self.port, self.path)
    }
}

/// `text` cut to [`MAX_ERROR_BODY_CHARS`] characters (with how much was left out).
pub fn cut(text: &str) -> String {
    let text = text.trim();
    let count = text.chars().count();
    if count <= MAX_ERROR_BODY_CHARS {
        return text.to_owned();
    }
    let head: String = text.chars().take(MAX_ERROR_BODY_CHARS).collect();
    format!("{head}… ({} more characters)", count - MAX_ERROR_BODY_CHARS)
}

/// POSTs `body` (JSON) to `url` with `bearer` as the key, and returns (status, reply body).
/// The whole exchange (connecting, sending, reading) must finish within `deadline`; the reply
/// is at most [`MAX_REPLY_BYTES`]; redirects are returned as their status, not followed.
pub fn post_json(
    url: &Url,
    bearer: Option<&str>,
    body: &str,
    deadline: Duration,
) -> Result<(u16, String), String> {
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .timeout_global(Some(deadline))
        .max_redirects(0)
        .http_status_as_error(false)
        .build()
        .into();
    let mut request = agent
        .post(url.text())
        .header("Content-Type", "application/json")
        .header("Accept", "application/json");
    if let Some(key) = bearer {
        request = request.header("Authorization", format!("Bearer {key}"));
    }
    let place = url.origin();
    let mut response = request.send(body).map_err(|e| describe(&place, &e))?;
    let status = response.status().as_u16();
    let text = response
        .body_mut()
        .with_config()
        .limit(MAX_REPLY_BYTES)
        .lossy_utf8(true)
        .read_to_string()
        .map_err(|e| describe(&place, &e))?;
    Ok((status, text))
}

/// A transport error in words, naming the endpoint.
fn describe(place: &str, error: &ureq::Error) -> String {
    match error {
        ureq::Error::Timeout(_) => {
            format!("{place}: no complete reply within the deadline (llm.timeout_s)")
        }
        ureq::Error::BodyExceedsLimit(_) => format!(
            "{place}: the reply is larger than {} MiB; refused",
            MAX_REPLY_BYTES / (1024 * 1024)
        ),
        other => format!("{place}: {}", cut(&other.to_string())),
    }
}

/// A chat message as the protocol carries it.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Message {
    /// `system`, `user` or `assistant`.
    pub role: String,
    /// The text.
    pub content: String,
}

/// A scripted OpenAI-compatible server on 127.0.0.1 for tests and demos: every POST to
/// `…/chat/completions` is answered with `policy(messages)`. It serves until dropped.
pub struct MockServer {
    /// The base address, `http://127.0.0.1:PORT/v1`.
    pub url: String,
    stop: std::sync::Arc<std::sync::atomic::AtomicBool>,
    port: u16,
    handle: Option<std::thread::JoinHandle<()>>,
}

impl MockServer {
    /// Starts the server on a free port of 127.0.0.1.
    pub fn start<F>(policy: F) -> std::io::Result<Self>
    where
        F: Fn(&[Message]) -> String + Send + 'static,
    {
        let listener = TcpListener::bind("127.0.0.1:0")?;
        let port = listener.local_addr()?.port();
        let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        let flag = stop.clone();
        let handle = std::thread::Builder::new()
            .name("reflection-mock-llm".into())
            .spawn(move || {
                for conn in listener.incoming() {
                    if flag.load(std::sync::atomic::Ordering::SeqCst) {
                        break;
                    }
                    let Ok(stream) = conn else { continue };
                    let _ = serve_one(stream, &policy);
                }
            })?;
        Ok(Self {
            url: format!("http://127.0.0.1:{port}/v1"),
            stop,
            port,
            handle: Some(handle),
        })
    }
}

impl Drop for MockServer {
    fn drop(&mut self) {
        self.stop.store(true, std::sync::atomic::Ordering::SeqCst);
        // Wake the accept loop.
        let _ = TcpStream::connect(("127.0.0.1", self.port));
        if let Some(h) = self.handle.take() {
            let _ = h.join();
        }
    }
}

fn serve_one<F: Fn(&[Message]) -> String>(stream: TcpStream, policy: &F) -> std::io::Result<()> {
    let mut reader = BufReader::new(stream.try_clone()?);
    let mut request_line = String::new();
    reader.read_line(&mut request_line)?;
    let mut length = 0usize;
    loop {
        let mut line = String::new();
        reader.read_line(&mut line)?;
        let line = line.trim_end();
        if line.is_empty() {
            break;
        }
        if let Some((k, v)) = line.split_once(':')
            && k.trim().eq_ignore_ascii_case("content-length")
        {
            length = v.trim().parse().unwrap_or(0);
        }
    }
    let mut body = vec![0; length];
    reader.read_exact(&mut body)?;
    let (status, reply) = if request_line.contains("/chat/completions") {
        let parsed: serde_json::Value = serde_json::from_slice(&body).unwrap_or_default();
        let messages: Vec<Message> =
            serde_json::from_value(parsed["messages"].clone()).unwrap_or_default();
        let content = policy(&messages);
        let json = serde_json::json!({
            "id": "mock",
            "object": "chat.completion",
            "choices": [{"index": 0, "message": {"role": "assistant", "content": content},
                         "finish_reason": "stop"}],
        });
        (200, json.to_string())
    } else {
        (404, "{\"error\":\"not found\"}".to_owned())
    };
    let mut out = stream;
    write!(
        out,
        "HTTP/1.1 {status} OK\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\
         Connection: close\r\n\r\n{reply}",
        reply.len()
    )?;
    out.flush()
}
