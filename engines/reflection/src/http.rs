//! A small blocking HTTP/1.1 client over `std::net` (plain `http://` only: meant for a model
//! server on this machine or the local network, e.g. llama.cpp, vLLM or Ollama), and a tiny
//! one-thread server for tests that answers chat completions with a scripted policy.

use std::io::{BufRead as _, BufReader, Read as _, Write as _};
use std::net::{TcpListener, TcpStream, ToSocketAddrs as _};
use std::time::Duration;

/// A parsed `http://host:port/path` address.
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
    /// Parses an address; only `http://` is supported (no TLS in this client).
    pub fn parse(url: &str) -> Result<Self, String> {
        let url = url.trim();
        if url.starts_with("https://") {
            return Err(format!(
                "`{url}`: https is not supported by the built-in client; use a local http:// \
                 endpoint (or a proxy)"
            ));
        }
        let Some(rest) = url.strip_prefix("http://") else {
            return Err(format!("`{url}`: the endpoint must start with http://"));
        };
        let (authority, path) = match rest.find('/') {
            Some(i) => (&rest[..i], rest[i..].to_owned()),
            None => (rest, "/".to_owned()),
        };
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
}

/// POSTs `body` (JSON) to `url` and returns (status, response body).
pub fn post_json(
    url: &Url,
    bearer: Option<&str>,
    body: &str,
    timeout: Duration,
) -> Result<(u16, String), String> {
    let addr = (url.host.as_str(), url.port)
        .to_socket_addrs()
        .map_err(|e| format!("{}:{}: {e}", url.host, url.port))?
        .next()
        .ok_or_else(|| format!("{}: no address", url.host))?;
    let mut stream = TcpStream::connect_timeout(&addr, timeout)
        .map_err(|e| format!("cannot connect to {}:{}: {e}", url.host, url.port))?;
    stream
        .set_read_timeout(Some(timeout))
        .map_err(|e| e.to_string())?;
    stream
        .set_write_timeout(Some(timeout))
        .map_err(|e| e.to_string())?;
    let auth = bearer
        .map(|k| format!("Authorization: Bearer {k}\r\n"))
        .unwrap_or_default();
    let head = format!(
        "POST {} HTTP/1.1\r\nHost: {}:{}\r\nContent-Type: application/json\r\nAccept: \
         application/json\r\n{auth}Content-Length: {}\r\nConnection: close\r\n\r\n",
        url.path,
        url.host,
        url.port,
        body.len()
    );
    stream
        .write_all(head.as_bytes())
        .map_err(|e| e.to_string())?;
    stream
        .write_all(body.as_bytes())
        .map_err(|e| e.to_string())?;
    let mut reader = BufReader::new(stream);
    let mut status_line = String::new();
    reader
        .read_line(&mut status_line)
        .map_err(|e| format!("reading the reply: {e}"))?;
    let status = status_line
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse::<u16>().ok())
        .ok_or_else(|| format!("not an HTTP reply: `{}`", status_line.trim()))?;
    let mut length: Option<usize> = None;
    let mut chunked = false;
    loop {
        let mut line = String::new();
        reader.read_line(&mut line).map_err(|e| e.to_string())?;
        let line = line.trim_end();
        if line.is_empty() {
            break;
        }
        if let Some((k, v)) = line.split_once(':') {
            let k = k.trim().to_ascii_lowercase();
            if k == "content-length" {
                length = v.trim().parse().ok();
            } else if k == "transfer-encoding" && v.to_ascii_lowercase().contains("chunked") {
                chunked = true;
            }
        }
    }
    let mut bytes = Vec::new();
    if chunked {
        loop {
            let mut size = String::new();
            reader.read_line(&mut size).map_err(|e| e.to_string())?;
            let n = usize::from_str_radix(size.trim().split(';').next().unwrap_or("0"), 16)
                .map_err(|_| format!("bad chunk size `{}`", size.trim()))?;
            if n == 0 {
                break;
            }
            let mut chunk = vec![0; n + 2];
            reader.read_exact(&mut chunk).map_err(|e| e.to_string())?;
            bytes.extend_from_slice(&chunk[..n]);
        }
    } else if let Some(n) = length {
        bytes.resize(n, 0);
        reader.read_exact(&mut bytes).map_err(|e| e.to_string())?;
    } else {
        reader.read_to_end(&mut bytes).map_err(|e| e.to_string())?;
    }
    Ok((status, String::from_utf8_lossy(&bytes).into_owned()))
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
