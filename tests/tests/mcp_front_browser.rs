//! A browser page on another origin talks to `maitool serve --mcp-http` the way browser-based
//! clients of the 2026-07-28 revision do: stateless requests carrying `Mcp-Method`, `Mcp-Name`
//! and `Mcp-Param-*` headers, which make the browser send a CORS preflight first. Real headless
//! Chromium (Debian's `chromium`) enforces the answer, so a header the front's preflight answer
//! does not allow fails the page's request, as it fails a user's.

mod mcp_front_support;

use std::io::{BufRead, BufReader, Write};
use std::net::TcpListener;
use std::time::Duration;

use maitool_e2e::chromium::{chromium, dump_dom};
use mcp_front_support::{Fixture, HttpServe};
use serde_json::Value;

/// The page: a 2026-07-28 `tools/list` and `tools/call` from script, the outcome written into
/// `<pre id="result">` (`RESULT:` and JSON, or `ERROR:` and the browser's reason).
fn page(front: &str) -> String {
    format!(
        r#"<!doctype html><html><body><pre id="result">pending</pre><script>
const FRONT = "{front}";
const meta = {{
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientInfo": {{"name": "browser-page", "version": "1.0.0"}},
  "io.modelcontextprotocol/clientCapabilities": {{}}
}};
async function post(body, headers) {{
  const response = await fetch(FRONT, {{
    method: "POST",
    headers: Object.assign({{
      "content-type": "application/json",
      "accept": "application/json, text/event-stream",
      "mcp-protocol-version": "2026-07-28"
    }}, headers),
    body: JSON.stringify(body)
  }});
  return {{status: response.status, body: await response.text()}};
}}
(async () => {{
  try {{
    const list = await post(
      {{jsonrpc: "2.0", id: 1, method: "tools/list", params: {{_meta: meta}}}},
      {{"mcp-method": "tools/list"}});
    const call = await post(
      {{jsonrpc: "2.0", id: 2, method: "tools/call",
        params: {{name: "ex_echo", arguments: {{text: "from a browser"}}, _meta: meta}}}},
      {{"mcp-method": "tools/call", "mcp-name": "ex_echo", "mcp-param-trace": "page-1"}});
    document.getElementById("result").textContent = "RESULT:" + JSON.stringify({{list, call}});
  }} catch (err) {{
    document.getElementById("result").textContent = "ERROR:" + err;
  }}
}})();
</script></body></html>"#
    )
}

/// Serves `html` at `/` on `listener` (the page's origin) until the test ends.
fn serve_page(listener: TcpListener, html: String) {
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { continue };
            // Read the request head; every path gets the page (favicon included).
            let mut reader = BufReader::new(stream.try_clone().unwrap());
            let mut line = String::new();
            while reader.read_line(&mut line).is_ok_and(|n| n > 0) && line != "\r\n" {
                line.clear();
            }
            let _ = write!(
                stream,
                "HTTP/1.1 200 OK\r\ncontent-type: text/html; charset=utf-8\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{html}",
                html.len()
            );
        }
    });
}

/// The text of `<pre id="result">` in a dumped DOM, unescaped.
fn result_text(dom: &str) -> String {
    let start = dom
        .find("<pre id=\"result\">")
        .unwrap_or_else(|| panic!("no result element in {dom}"));
    let rest = &dom[start + "<pre id=\"result\">".len()..];
    let end = rest.find("</pre>").expect("the element ends");
    rest[..end]
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&amp;", "&")
}

#[test]
fn a_browser_page_lists_and_calls_with_the_2026_headers() {
    let Some(chromium) = chromium("the MCP front's browser test") else {
        return;
    };
    let fixture = Fixture::new();
    // The page's origin is bound before serve starts, so the front can allow it.
    let page_listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let origin = format!("http://{}", page_listener.local_addr().unwrap());
    let serve = HttpServe::start_with(&fixture, &["--mcp-allowed-origin", &origin]);
    fixture.wait_settled();
    serve_page(page_listener, page(&serve.url));
    let dom = dump_dom(&chromium, &format!("{origin}/"), Duration::from_secs(20));
    let text = result_text(&dom);
    let json = text
        .strip_prefix("RESULT:")
        .unwrap_or_else(|| panic!("the page's requests failed in the browser: {text}"));
    let outcome: Value = serde_json::from_str(json).unwrap();
    assert_eq!(outcome["list"]["status"], 200, "{outcome}");
    let listing = outcome["list"]["body"].as_str().unwrap();
    for tool in ["\"roll_dice\"", "\"ex_echo\"", "\"tool_search\""] {
        assert!(listing.contains(tool), "{tool} listed: {listing}");
    }
    assert_eq!(outcome["call"]["status"], 200, "{outcome}");
    let call = outcome["call"]["body"].as_str().unwrap();
    assert!(call.contains("from a browser"), "{call}");
    assert!(!call.contains("\"isError\":true"), "{call}");
    assert!(serve.stop().success());
}
