//! The rack map: which rack each rank sits in, from the `DLS_RACKS` setting (syntax: see
//! [`RackMap`]).

use std::fmt;

use super::error::GroupError;
use super::host_pattern::HostPattern;

/// What `DLS_RACKS` may hold, quoted in every rack map error.
const FORMS: &str = "allowed forms: `rack1:host[1-4],hostA;rack2:cn*` (host map), \
                     `ranks:0-2=a,3-4=b` (rank map), or the path of a file holding one of these";

/// One rack of a host map and the host patterns that put a rank into it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HostRule {
    /// Rack name.
    pub rack: String,
    /// Host patterns of this rack.
    pub patterns: Vec<HostPattern>,
}

/// Ranks `lo..=hi` of a rank map are in `rack`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RankRule {
    /// First rank.
    pub lo: usize,
    /// Last rank (inclusive).
    pub hi: usize,
    /// Rack name.
    pub rack: String,
}

/// A parsed rack map: which rack each rank is in.
///
/// Cariño & Banicescu (2007, §3) group the ranks of one rack together because they talk over the same rack switch.
/// MPI does not know racks, so the user says where they are. `DLS_RACKS` holds one of:
///
/// | form | example | meaning |
/// |------|---------|---------|
/// | unset or empty | | every node (MPI processor name) is its own rack |
/// | host map | `rack1:host[1-4],hostA;rack2:cn*` | a rank whose host name matches a pattern of `rack1` is in `rack1`; entries are tried in order, the first match wins |
/// | rank map | `ranks:0-2=a,3-4=b` | ranks 0, 1, 2 are in rack `a`, ranks 3, 4 in rack `b` (simulated racks, for tests on one machine) |
/// | file path | `/etc/dls/racks` | a file holding a host map or a rank map; newlines separate entries like `;`, `#` starts a comment |
///
/// A value is read as a file path when it holds neither `:` nor `=`. Host patterns accept `*`
/// (any run of characters), `?` (one character) and bracketed numeric ranges `[1-4,7]`,
/// `[01-16]` (see [`HostPattern`]). A host that matches no pattern, or a rank that the rank map
/// does not list, is in the rack named after its node. Rack names use letters, digits, `_`, `-`
/// and `.`; the word `ranks` before the first `:` selects the rank map.
///
/// ```
/// use dls_runtime::group::RackMap;
/// let m: RackMap = "rack1:host[1-4],hostA;rack2:cn*".parse().unwrap();
/// assert_eq!(m.rack_of(9, "host3"), "rack1");
/// assert_eq!(m.rack_of(9, "cn17"), "rack2");
/// assert_eq!(m.rack_of(9, "login"), "login"); // unmatched: the node is the rack
///
/// let m: RackMap = "ranks:0-2=a,3-4=b".parse().unwrap();
/// assert_eq!(m.rack_of(2, "h"), "a");
/// assert_eq!(m.rack_of(4, "h"), "b");
/// assert_eq!(m.rack_of(5, "h"), "h");
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum RackMap {
    /// No map: every node is its own rack.
    #[default]
    Nodes,
    /// Racks from host name patterns.
    Hosts(Vec<HostRule>),
    /// Racks from rank numbers.
    Ranks(Vec<RankRule>),
}

impl RackMap {
    /// Reads `DLS_RACKS` (unset: [`RackMap::Nodes`]).
    ///
    /// ```
    /// // With DLS_RACKS unset every node is its own rack.
    /// if std::env::var_os("DLS_RACKS").is_none() {
    ///     assert_eq!(dls_runtime::group::RackMap::from_env().unwrap(), dls_runtime::group::RackMap::Nodes);
    /// }
    /// ```
    pub fn from_env() -> Result<RackMap, GroupError> {
        match std::env::var("DLS_RACKS") {
            Ok(v) => RackMap::from_setting(&v),
            Err(std::env::VarError::NotPresent) => Ok(RackMap::Nodes),
            Err(std::env::VarError::NotUnicode(_)) => Err(GroupError::RackMap(format!(
                "the value is not valid UTF-8 ({FORMS})"
            ))),
        }
    }

    /// Parses a `DLS_RACKS` value: an inline map, or the path of a file holding one (a value
    /// with neither `:` nor `=`).
    ///
    /// ```
    /// use dls_runtime::group::RackMap;
    /// let dir = std::env::temp_dir().join("dls_rack_map_doctest");
    /// std::fs::write(&dir, "# two racks\nr1: node[1-2]\nr2: node[3-4]\n").unwrap();
    /// let m = RackMap::from_setting(dir.to_str().unwrap()).unwrap();
    /// assert_eq!(m.rack_of(0, "node3"), "r2");
    /// assert!(RackMap::from_setting("/no/such/file").is_err());
    /// ```
    pub fn from_setting(value: &str) -> Result<RackMap, GroupError> {
        let trimmed = value.trim();
        if !trimmed.is_empty() && !trimmed.contains(':') && !trimmed.contains('=') {
            // A rack map is a few lines: 16 MiB is plenty, and `/dev/zero` is refused.
            let text =
                crate::input::read_text(std::path::Path::new(trimmed), 16 << 20).map_err(|e| {
                    GroupError::RackMap(format!(
                        "cannot read rack map file `{trimmed}`: {e} ({FORMS})"
                    ))
                })?;
            return text.parse().map_err(|e: GroupError| match e {
                GroupError::RackMap(m) => GroupError::RackMap(format!("in file `{trimmed}`: {m}")),
                other => other,
            });
        }
        trimmed.parse()
    }

    /// The rack of world rank `rank` running on node `host`.
    ///
    /// ```
    /// let m: dls_runtime::group::RackMap = "ranks:0=x".parse().unwrap();
    /// assert_eq!(m.rack_of(0, "n1"), "x");
    /// ```
    pub fn rack_of(&self, rank: usize, host: &str) -> String {
        let found = match self {
            RackMap::Nodes => None,
            RackMap::Hosts(rules) => rules
                .iter()
                .find(|r| r.patterns.iter().any(|p| p.matches(host)))
                .map(|r| r.rack.clone()),
            RackMap::Ranks(rules) => rules
                .iter()
                .find(|r| r.lo <= rank && rank <= r.hi)
                .map(|r| r.rack.clone()),
        };
        found.unwrap_or_else(|| host.to_string())
    }

    /// Checks a rank map against the job's `size` ranks: a rank it names that does not exist is an
    /// error (a map written for another job size would silently put the real ranks elsewhere).
    ///
    /// ```
    /// let m: dls_runtime::group::RackMap = "ranks:0-2=a,3-4=b".parse().unwrap();
    /// assert!(m.check_ranks(5).is_ok());
    /// assert!(m.check_ranks(4).unwrap_err().contains("rank 4"));
    /// ```
    pub fn check_ranks(&self, size: usize) -> Result<(), String> {
        if let RackMap::Ranks(rules) = self {
            if let Some(r) = rules.iter().find(|r| r.hi >= size) {
                return Err(format!(
                    "DLS_RACKS names rank {} (in `{}-{}={}`), but this job has {size} ranks, 0 to \
                     {}: write the map for this job's size",
                    r.hi,
                    r.lo,
                    r.hi,
                    r.rack,
                    size.saturating_sub(1)
                ));
            }
        }
        Ok(())
    }

    /// The racks of ranks `0..hosts.len()`, where `hosts[r]` is the node of rank `r`.
    ///
    /// ```
    /// let m: dls_runtime::group::RackMap = "ranks:0-1=a,2=b".parse().unwrap();
    /// assert_eq!(m.racks(&["h", "h", "h"]), ["a", "a", "b"]);
    /// ```
    pub fn racks<S: AsRef<str>>(&self, hosts: &[S]) -> Vec<String> {
        hosts
            .iter()
            .enumerate()
            .map(|(r, h)| self.rack_of(r, h.as_ref()))
            .collect()
    }
}

fn check_rack_name(name: &str, entry: &str) -> Result<String, GroupError> {
    let name = name.trim();
    if name.is_empty() {
        return Err(GroupError::RackMap(format!(
            "entry `{entry}` has an empty rack name ({FORMS})"
        )));
    }
    if let Some(c) = name
        .chars()
        .find(|c| !(c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.')))
    {
        return Err(GroupError::RackMap(format!(
            "rack name `{name}` in entry `{entry}` holds `{c}` (rack names use letters, digits, `_`, `-`, `.`)"
        )));
    }
    Ok(name.to_string())
}

/// Splits at `,` outside brackets.
fn split_patterns(list: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let (mut depth, mut start) = (0i32, 0usize);
    for (i, c) in list.char_indices() {
        match c {
            '[' => depth += 1,
            ']' => depth -= 1,
            ',' if depth == 0 => {
                out.push(&list[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    out.push(&list[start..]);
    out
}

fn parse_rank(t: &str, item: &str) -> Result<usize, GroupError> {
    t.trim().parse::<usize>().map_err(|_| {
        GroupError::RackMap(format!(
            "rank map item `{item}`: `{}` is not a rank number ({FORMS})",
            t.trim()
        ))
    })
}

fn parse_rank_map(body: &str) -> Result<RackMap, GroupError> {
    let mut rules: Vec<RankRule> = Vec::new();
    for item in body
        .split([',', ';'])
        .map(str::trim)
        .filter(|s| !s.is_empty())
    {
        let (ranks, rack) = item.split_once('=').ok_or_else(|| {
            GroupError::RackMap(format!(
                "rank map item `{item}` lacks `=rack` (write e.g. `0-2=a`; {FORMS})"
            ))
        })?;
        let rack = check_rack_name(rack, item)?;
        let (lo, hi) = match ranks.split_once('-') {
            Some((a, b)) => (parse_rank(a, item)?, parse_rank(b, item)?),
            None => {
                let r = parse_rank(ranks, item)?;
                (r, r)
            }
        };
        if lo > hi {
            return Err(GroupError::RackMap(format!(
                "rank map item `{item}`: range {lo}-{hi} runs backwards"
            )));
        }
        if let Some(other) = rules.iter().find(|r| r.lo <= hi && lo <= r.hi) {
            return Err(GroupError::RackMap(format!(
                "rank map item `{item}` overlaps `{}-{}={}`: each rank belongs to one rack",
                other.lo, other.hi, other.rack
            )));
        }
        rules.push(RankRule { lo, hi, rack });
    }
    if rules.is_empty() {
        return Err(GroupError::RackMap(format!(
            "`ranks:` is followed by no item ({FORMS})"
        )));
    }
    Ok(RackMap::Ranks(rules))
}

impl std::str::FromStr for RackMap {
    type Err = GroupError;

    /// Parses an inline map (a file's content may hold newlines and `#` comments).
    fn from_str(text: &str) -> Result<RackMap, GroupError> {
        let cleaned: Vec<&str> = text
            .lines()
            .map(|l| l.split('#').next().unwrap_or("").trim())
            .filter(|l| !l.is_empty())
            .collect();
        let joined = cleaned.join(";");
        let joined = joined.trim();
        if joined.is_empty() {
            return Ok(RackMap::Nodes);
        }
        if let Some((head, body)) = joined.split_once(':') {
            if head.trim() == "ranks" {
                return parse_rank_map(body);
            }
        }
        let mut rules = Vec::new();
        for entry in joined.split(';').map(str::trim).filter(|s| !s.is_empty()) {
            let (rack, list) = entry.split_once(':').ok_or_else(|| {
                GroupError::RackMap(format!(
                    "entry `{entry}` lacks `rack:` before its hosts ({FORMS})"
                ))
            })?;
            let rack = check_rack_name(rack, entry)?;
            if rack == "ranks" {
                return Err(GroupError::RackMap(format!(
                    "entry `{entry}`: `ranks` is reserved for the rank map and must come first ({FORMS})"
                )));
            }
            let patterns = split_patterns(list)
                .into_iter()
                .map(str::parse)
                .collect::<Result<Vec<HostPattern>, _>>()
                .map_err(|e| match e {
                    GroupError::RackMap(m) => GroupError::RackMap(format!("entry `{entry}`: {m}")),
                    other => other,
                })?;
            rules.push(HostRule { rack, patterns });
        }
        Ok(RackMap::Hosts(rules))
    }
}

impl fmt::Display for RackMap {
    /// Writes the map back in `DLS_RACKS` syntax.
    ///
    /// ```
    /// let m: dls_runtime::group::RackMap = "ranks: 0-2=a, 3=b".parse().unwrap();
    /// assert_eq!(m.to_string(), "ranks:0-2=a,3=b");
    /// ```
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RackMap::Nodes => Ok(()),
            RackMap::Hosts(rules) => {
                let parts: Vec<String> = rules
                    .iter()
                    .map(|r| {
                        let ps: Vec<&str> = r.patterns.iter().map(|p| p.as_str()).collect();
                        format!("{}:{}", r.rack, ps.join(","))
                    })
                    .collect();
                f.write_str(&parts.join(";"))
            }
            RackMap::Ranks(rules) => {
                let parts: Vec<String> = rules
                    .iter()
                    .map(|r| {
                        if r.lo == r.hi {
                            format!("{}={}", r.lo, r.rack)
                        } else {
                            format!("{}-{}={}", r.lo, r.hi, r.rack)
                        }
                    })
                    .collect();
                write!(f, "ranks:{}", parts.join(","))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn empty_means_nodes() {
        assert_eq!("".parse::<RackMap>().unwrap(), RackMap::Nodes);
        assert_eq!("  # nothing\n".parse::<RackMap>().unwrap(), RackMap::Nodes);
        assert_eq!(RackMap::from_setting("").unwrap(), RackMap::Nodes);
        assert_eq!(RackMap::Nodes.rack_of(3, "n7"), "n7");
    }

    #[test]
    fn host_map_first_match_wins() {
        let m: RackMap = "a:n[1-4],x*; b:n*".parse().unwrap();
        assert_eq!(m.rack_of(0, "n2"), "a");
        assert_eq!(m.rack_of(0, "xyz"), "a");
        assert_eq!(m.rack_of(0, "n9"), "b");
        assert_eq!(m.rack_of(0, "q"), "q");
        assert_eq!(m.to_string(), "a:n[1-4],x*;b:n*");
    }

    #[test]
    fn rank_map() {
        let m: RackMap = "ranks:0-2=a,3-4=b".parse().unwrap();
        assert_eq!(
            m.racks(&["h"; 6]),
            ["a", "a", "a", "b", "b", "h"].map(String::from)
        );
    }

    #[test]
    fn file_with_comments_and_newlines() {
        let path = std::env::temp_dir().join(format!("dls_racks_test_{}", std::process::id()));
        std::fs::write(&path, "ranks:\n0-1=a # first\n2=b\n").unwrap();
        let m = RackMap::from_setting(path.to_str().unwrap()).unwrap();
        assert_eq!(m.racks(&["h"; 3]), ["a", "a", "b"].map(String::from));
        std::fs::remove_file(&path).unwrap();
    }

    #[test]
    fn bad_maps_are_clear_errors() {
        for (bad, says) in [
            ("rack1", "cannot read rack map file"),
            ("rack1 host1", "cannot read rack map file"),
            ("a:n[1-", "without a closing"),
            (":n1", "empty rack name"),
            ("a b:n1", "rack name `a b`"),
            ("a:n1;n2", "lacks `rack:`"),
            ("a:n1;ranks:0=b", "reserved"),
            ("ranks:0-2", "lacks `=rack`"),
            ("ranks:x=a", "not a rank number"),
            ("ranks:3-1=a", "backwards"),
            ("ranks:0-2=a,2=b", "overlaps"),
            ("ranks:", "no item"),
            ("a:", "empty host pattern"),
        ] {
            let e = RackMap::from_setting(bad).unwrap_err();
            assert!(matches!(e, GroupError::RackMap(_)), "{bad}: {e}");
            let text = e.to_string();
            assert!(text.starts_with("DLS_RACKS: "), "{bad}: {text}");
            assert!(text.contains(says), "{bad}: {text}");
        }
    }
}
