//! A network namespace with veth links to the test's own namespace, made with `ip` (iproute2)
//! and removed on drop, for tests where hosts and a runner are on different addresses and a
//! link is cut. Needs CAP_NET_ADMIN (root): without it the test skips loudly, and with
//! `MAITOOL_REQUIRE_NETNS=1` (CI) it fails.

use std::process::Command;

/// A namespace and its links; everything is removed when dropped.
#[derive(Debug)]
pub struct Netns {
    /// The namespace's name, for `ip netns exec`.
    pub name: String,
    links: Vec<Link>,
}

/// A veth pair: one end here (the test's namespace), one in the namespace.
#[derive(Debug)]
pub struct Link {
    /// The end in the test's namespace.
    pub outside: String,
    /// The end in the namespace.
    pub inside: String,
    /// The outside end's address.
    pub outside_addr: String,
    /// The inside end's address.
    pub inside_addr: String,
}

fn ip(args: &[&str]) -> Result<(), String> {
    let output = Command::new("ip")
        .args(args)
        .output()
        .map_err(|err| format!("cannot run ip {}: {err}", args.join(" ")))?;
    if output.status.success() {
        Ok(())
    } else {
        Err(format!(
            "ip {} failed: {}",
            args.join(" "),
            String::from_utf8_lossy(&output.stderr).trim()
        ))
    }
}

impl Netns {
    /// A namespace with its loopback up and `links` veth pairs, the `n`th on the /30 subnet
    /// `10.<a>.<b>.<4n>` (outside `.4n+1`, inside `.4n+2`), where `a.b` is taken from the
    /// process id so that concurrent runs do not collide. `None` after a loud skip when this
    /// process may not make namespaces; with `MAITOOL_REQUIRE_NETNS=1` that is a failure.
    pub fn create(test: &str, links: usize) -> Option<Netns> {
        let pid = std::process::id();
        let name = format!("mt{pid}");
        if let Err(err) = ip(&["netns", "add", &name]) {
            let message = format!("{test}: cannot make a network namespace ({err})");
            if std::env::var("MAITOOL_REQUIRE_NETNS").as_deref() == Ok("1") {
                panic!("{message}; MAITOOL_REQUIRE_NETNS=1 requires it");
            }
            crate::skip::announce(&format!(
                "{message}; run as root (CI sets MAITOOL_REQUIRE_NETNS=1)"
            ));
            return None;
        }
        let mut netns = Netns {
            name,
            links: Vec::new(),
        };
        netns.up(&["link", "set", "lo", "up"]);
        let (a, b) = (10 + (pid >> 8) % 200, pid % 256);
        for n in 0..links {
            let outside = format!("mt{pid}o{n}");
            let inside = format!("mt{pid}i{n}");
            let outside_addr = format!("10.{a}.{b}.{}", 4 * n + 1);
            let inside_addr = format!("10.{a}.{b}.{}", 4 * n + 2);
            let name = netns.name.clone();
            for args in [
                vec![
                    "link", "add", &outside, "type", "veth", "peer", "name", &inside, "netns",
                    &name,
                ],
                vec![
                    "addr",
                    "add",
                    &format!("{outside_addr}/30"),
                    "dev",
                    &outside,
                ],
                vec!["link", "set", &outside, "up"],
            ] {
                ip(&args).unwrap_or_else(|err| panic!("{test}: {err}"));
            }
            netns.up(&["addr", "add", &format!("{inside_addr}/30"), "dev", &inside]);
            netns.up(&["link", "set", &inside, "up"]);
            netns.links.push(Link {
                outside,
                inside,
                outside_addr,
                inside_addr,
            });
        }
        Some(netns)
    }

    /// Runs `ip -n <namespace> args`, which must succeed.
    fn up(&self, args: &[&str]) {
        let mut all = vec!["-n", self.name.as_str()];
        all.extend_from_slice(args);
        ip(&all).unwrap_or_else(|err| panic!("{err}"));
    }

    /// The `n`th link.
    pub fn link(&self, n: usize) -> &Link {
        &self.links[n]
    }

    /// Cuts the `n`th link (its outside end down: packets are dropped, nobody is told).
    pub fn cut(&self, n: usize) {
        ip(&["link", "set", &self.links[n].outside, "down"]).unwrap_or_else(|err| panic!("{err}"));
    }

    /// Restores the `n`th link.
    pub fn restore(&self, n: usize) {
        ip(&["link", "set", &self.links[n].outside, "up"]).unwrap_or_else(|err| panic!("{err}"));
    }

    /// Makes `entries` (`(address, name)`) the namespace's `/etc/hosts`: `ip netns exec`
    /// mounts `/etc/netns/<name>/hosts` over `/etc/hosts` for what it runs.
    pub fn hosts(&self, entries: &[(&str, &str)]) {
        let dir = self.etc();
        std::fs::create_dir_all(&dir).unwrap();
        let text: String = entries
            .iter()
            .map(|(addr, name)| format!("{addr} {name}\n"))
            .collect();
        std::fs::write(dir.join("hosts"), format!("127.0.0.1 localhost\n{text}")).unwrap();
    }

    fn etc(&self) -> std::path::PathBuf {
        std::path::Path::new("/etc/netns").join(&self.name)
    }

    /// A command that runs `program` inside the namespace.
    pub fn command(&self, program: &std::path::Path) -> Command {
        let mut command = Command::new("ip");
        command.args(["netns", "exec", &self.name]).arg(program);
        command
    }
}

impl Drop for Netns {
    fn drop(&mut self) {
        // Deleting the namespace deletes its veth ends, and with them the outside ends.
        let _ = ip(&["netns", "del", &self.name]);
        let _ = std::fs::remove_dir_all(self.etc());
    }
}
