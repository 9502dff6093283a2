//! `benchtop params [KIND]`: the declared parameters of the panel kinds, from their one
//! declaration (the same that draws the widgets, checks projects and offers sweeps).

use benchtop_kit::panel::DeclaredParam;

use crate::catalog::catalog;

/// Prints the declared parameters of `kind` (every kind when `None`), as text or JSON.
pub fn print(kind: Option<&str>, json: bool) -> anyhow::Result<()> {
    let kinds: Vec<_> = catalog()
        .iter()
        .filter(|k| kind.is_none_or(|id| id == k.id))
        .collect();
    if kinds.is_empty() {
        let ids: Vec<&str> = catalog().iter().map(|k| k.id).collect();
        anyhow::bail!(
            "no panel kind `{}` (the kinds are {})",
            kind.unwrap_or_default(),
            ids.join(", ")
        );
    }
    let listed: Vec<(&str, Vec<DeclaredParam>)> = kinds
        .iter()
        .filter_map(|k| Some((k.id, crate::catalog::create(k)?.declared_params())))
        .collect();
    let mut out = String::new();
    if json {
        let value: serde_json::Map<String, serde_json::Value> = listed
            .iter()
            .map(|(id, params)| Ok(((*id).to_owned(), serde_json::to_value(params)?)))
            .collect::<anyhow::Result<_>>()?;
        out = serde_json::to_string_pretty(&value)?;
        out.push('\n');
    } else {
        for (id, params) in &listed {
            out.push_str(&format!("{id}\n"));
            for p in params {
                out.push_str(&format!(
                    "  {:<32} {:<40} {}..={}{}{} (default {}{})\n",
                    p.key,
                    p.label,
                    p.min,
                    p.max,
                    if p.integer { ", whole" } else { "" },
                    if p.sweep { ", sweepable" } else { "" },
                    p.default,
                    p.unit,
                ));
            }
        }
    }
    use std::io::Write as _;
    std::io::stdout().write_all(out.as_bytes())?;
    Ok(())
}
