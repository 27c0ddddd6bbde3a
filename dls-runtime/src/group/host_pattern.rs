//! Host name patterns of the rack map: literal text, `*` (any run of characters), `?` (one
//! character) and numeric ranges in brackets as in cluster host lists (`node[1-4,7]`,
//! `n[01-16]`, where a bound written with leading zeros demands that many digits).

use super::error::GroupError;

/// One numeric range `lo-hi` (or a single number) inside brackets; `width` > 0 when the bound
/// was written with leading zeros, which then demands exactly that many digits.
#[derive(Debug, Clone, PartialEq, Eq)]
struct NumRange {
    lo: u64,
    hi: u64,
    width: usize,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Token {
    Literal(char),
    Star,
    Question,
    Ranges(Vec<NumRange>),
}

/// A compiled host name pattern.
///
/// ```
/// use dls_runtime::group::HostPattern;
/// let p: HostPattern = "node[1-12]".parse().unwrap();
/// assert!(p.matches("node7") && p.matches("node12"));
/// assert!(!p.matches("node13") && !p.matches("node"));
/// assert!("cn*.local".parse::<HostPattern>().unwrap().matches("cn04.local"));
/// assert!("n[01-16]".parse::<HostPattern>().unwrap().matches("n05"));
/// assert!(!"n[01-16]".parse::<HostPattern>().unwrap().matches("n5"));
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HostPattern {
    text: String,
    tokens: Vec<Token>,
}

impl HostPattern {
    /// The pattern as written.
    ///
    /// ```
    /// assert_eq!("a*".parse::<dls_runtime::group::HostPattern>().unwrap().as_str(), "a*");
    /// ```
    pub fn as_str(&self) -> &str {
        &self.text
    }

    /// Whether `host` matches the whole pattern.
    ///
    /// ```
    /// let p: dls_runtime::group::HostPattern = "r?n[1-2]".parse().unwrap();
    /// assert!(p.matches("r1n2"));
    /// assert!(!p.matches("r1n3"));
    /// ```
    pub fn matches(&self, host: &str) -> bool {
        let chars: Vec<char> = host.chars().collect();
        match_from(&self.tokens, &chars)
    }
}

fn match_from(tokens: &[Token], s: &[char]) -> bool {
    let Some((first, rest)) = tokens.split_first() else {
        return s.is_empty();
    };
    match first {
        Token::Literal(c) => s.first() == Some(c) && match_from(rest, &s[1..]),
        Token::Question => !s.is_empty() && match_from(rest, &s[1..]),
        Token::Star => (0..=s.len()).any(|k| match_from(rest, &s[k..])),
        Token::Ranges(ranges) => {
            let run = s.iter().take_while(|c| c.is_ascii_digit()).count();
            (1..=run).any(|len| {
                let digits: String = s[..len].iter().collect();
                let Ok(value) = digits.parse::<u64>() else {
                    return false;
                };
                ranges.iter().any(|r| {
                    let width_ok = if r.width > 0 {
                        len == r.width
                    } else {
                        len == 1 || !digits.starts_with('0')
                    };
                    width_ok && r.lo <= value && value <= r.hi
                }) && match_from(rest, &s[len..])
            })
        }
    }
}

fn parse_ranges(body: &str, pattern: &str) -> Result<Vec<NumRange>, GroupError> {
    let bad = |why: &str| {
        GroupError::RackMap(format!(
            "host pattern `{pattern}`: {why} (allowed inside brackets: numbers and ranges such as [1-4,7] or [01-16])"
        ))
    };
    let mut out = Vec::new();
    for part in body.split(',') {
        let part = part.trim();
        let (lo_s, hi_s) = part.split_once('-').unwrap_or((part, part));
        let number = |t: &str| -> Result<(u64, usize), GroupError> {
            if t.is_empty() || !t.chars().all(|c| c.is_ascii_digit()) {
                return Err(bad(&format!("`{part}` is not a number or a range a-b")));
            }
            let v = t
                .parse::<u64>()
                .map_err(|_| bad(&format!("`{t}` is too large")))?;
            let width = if t.len() > 1 && t.starts_with('0') {
                t.len()
            } else {
                0
            };
            Ok((v, width))
        };
        let (lo, wl) = number(lo_s)?;
        let (hi, wh) = number(hi_s)?;
        if lo > hi {
            return Err(bad(&format!("range `{part}` runs backwards")));
        }
        out.push(NumRange {
            lo,
            hi,
            width: wl.max(wh),
        });
    }
    Ok(out)
}

impl std::str::FromStr for HostPattern {
    type Err = GroupError;

    fn from_str(text: &str) -> Result<Self, GroupError> {
        let text = text.trim();
        if text.is_empty() {
            return Err(GroupError::RackMap(
                "empty host pattern (write a host name or a pattern such as node[1-4] or cn*)"
                    .into(),
            ));
        }
        let mut tokens = Vec::new();
        let mut chars = text.chars();
        while let Some(c) = chars.next() {
            match c {
                '*' => tokens.push(Token::Star),
                '?' => tokens.push(Token::Question),
                '[' => {
                    let mut body = String::new();
                    let mut closed = false;
                    for c in chars.by_ref() {
                        if c == ']' {
                            closed = true;
                            break;
                        }
                        body.push(c);
                    }
                    if !closed {
                        return Err(GroupError::RackMap(format!(
                            "host pattern `{text}`: `[` without a closing `]`"
                        )));
                    }
                    tokens.push(Token::Ranges(parse_ranges(&body, text)?));
                }
                ']' => {
                    return Err(GroupError::RackMap(format!(
                        "host pattern `{text}`: `]` without an opening `[`"
                    )))
                }
                c if c.is_whitespace() || c == ';' || c == ':' || c == '=' => {
                    return Err(GroupError::RackMap(format!(
                        "host pattern `{text}`: character `{c}` is not allowed in a host name"
                    )))
                }
                c => tokens.push(Token::Literal(c)),
            }
        }
        Ok(HostPattern {
            text: text.to_string(),
            tokens,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(s: &str) -> HostPattern {
        s.parse().unwrap()
    }

    #[test]
    fn literal_matches_only_itself() {
        assert!(p("hostA").matches("hostA"));
        assert!(!p("hostA").matches("hostAB"));
        assert!(!p("hostA").matches("host"));
    }

    #[test]
    fn star_and_question() {
        assert!(p("*").matches(""));
        assert!(p("a*b").matches("ab"));
        assert!(p("a*b").matches("axxb"));
        assert!(!p("a*b").matches("axxc"));
        assert!(p("n??").matches("n12"));
        assert!(!p("n??").matches("n1"));
    }

    #[test]
    fn numeric_ranges() {
        let q = p("host[1-4,7]");
        for h in ["host1", "host2", "host4", "host7"] {
            assert!(q.matches(h), "{h}");
        }
        for h in ["host0", "host5", "host8", "host01", "host", "host1x"] {
            assert!(!q.matches(h), "{h}");
        }
        assert!(p("n[8-12].x").matches("n10.x"));
        assert!(p("n[0-3]").matches("n0"));
        assert!(p("n[001-100]").matches("n042"));
        assert!(!p("n[001-100]").matches("n42"));
        assert!(p("r[1-2]n[1-3]").matches("r2n3"));
        assert!(!p("r[1-2]n[1-3]").matches("r3n1"));
    }

    #[test]
    fn bad_patterns_are_errors() {
        for bad in [
            "",
            "n[1-",
            "n[a-b]",
            "n[5-2]",
            "n]",
            "a b",
            "n[]",
            "x[1-2]y[3",
        ] {
            let e = bad.parse::<HostPattern>().unwrap_err();
            assert!(matches!(e, GroupError::RackMap(_)), "{bad}: {e}");
        }
    }
}
