//! Reads the `.xml` of an IR into plain records: layers with their `<data>` attributes and
//! ports, and edges. Nothing here knows what a layer type means.

use std::collections::BTreeMap;

use roxmltree::{Document, Node};

use crate::ir::error::{IrError, LayerRef};
use crate::ir::types::IrShape;

/// A `<port>`: its id, precision and declared dims.
#[derive(Debug, Clone)]
pub(crate) struct RawPort {
    pub id: u64,
    pub precision: Option<String>,
    /// The `<dim>`s; a port with none is rank 0 or, on a dynamic model, of any rank.
    pub dims: IrShape,
}

/// A `<layer>`.
#[derive(Debug, Clone)]
pub(crate) struct RawLayer {
    pub layer: LayerRef,
    pub version: String,
    /// Attributes of the `<data>` element.
    pub data: BTreeMap<String, String>,
    pub inputs: Vec<RawPort>,
    pub outputs: Vec<RawPort>,
}

impl RawLayer {
    pub fn attr(&self, name: &str) -> Option<&str> {
        self.data.get(name).map(String::as_str)
    }
}

/// An `<edge>`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct RawEdge {
    pub from_layer: u64,
    pub from_port: u64,
    pub to_layer: u64,
    pub to_port: u64,
}

/// The whole `<net>`.
#[derive(Debug, Clone)]
pub(crate) struct RawNet {
    pub name: String,
    pub version: u32,
    pub layers: Vec<RawLayer>,
    pub edges: Vec<RawEdge>,
}

/// Parses IR XML text. `origin` names the file in messages.
pub(crate) fn parse(text: &str, origin: &str) -> Result<RawNet, IrError> {
    let doc = Document::parse(text).map_err(|e| IrError::Xml {
        path: origin.to_string(),
        message: e.to_string(),
    })?;
    let net = doc.root_element();
    if net.tag_name().name() != "net" {
        return Err(IrError::NotIr(format!(
            "the root element is <{}>, not <net>",
            net.tag_name().name()
        )));
    }
    let version_text = net
        .attribute("version")
        .ok_or_else(|| IrError::NotIr("<net> has no version attribute".into()))?;
    let version = match version_text.trim() {
        "10" => 10,
        "11" => 11,
        other => return Err(IrError::UnsupportedIrVersion(other.to_string())),
    };
    let layers_node = child(net, "layers")
        .ok_or_else(|| IrError::NotIr("<net> has no <layers> element".into()))?;
    let layers = elements(layers_node, "layer")
        .enumerate()
        .map(|(i, node)| parse_layer(node, i))
        .collect::<Result<Vec<_>, _>>()?;
    let edges = match child(net, "edges") {
        Some(e) => elements(e, "edge")
            .enumerate()
            .map(|(i, node)| parse_edge(node, i))
            .collect::<Result<Vec<_>, _>>()?,
        None => Vec::new(),
    };
    Ok(RawNet {
        name: net.attribute("name").unwrap_or("").to_string(),
        version,
        layers,
        edges,
    })
}

fn child<'a, 'i>(node: Node<'a, 'i>, name: &str) -> Option<Node<'a, 'i>> {
    node.children()
        .find(|c| c.is_element() && c.tag_name().name() == name)
}

fn elements<'a, 'i: 'a>(
    node: Node<'a, 'i>,
    name: &'a str,
) -> impl Iterator<Item = Node<'a, 'i>> + 'a {
    node.children()
        .filter(move |c| c.is_element() && c.tag_name().name() == name)
}

fn parse_u64(text: &str) -> Option<u64> {
    text.trim().parse().ok()
}

fn parse_layer(node: Node<'_, '_>, index: usize) -> Result<RawLayer, IrError> {
    let id_text = node
        .attribute("id")
        .ok_or_else(|| IrError::NotIr(format!("layer #{index} in <layers> has no id")))?;
    let id = parse_u64(id_text).ok_or_else(|| {
        IrError::NotIr(format!(
            "layer #{index} in <layers> has id '{id_text}', which is not a non-negative integer"
        ))
    })?;
    let layer = LayerRef {
        id,
        name: node.attribute("name").unwrap_or("").to_string(),
        kind: node.attribute("type").unwrap_or("").to_string(),
    };
    if layer.kind.is_empty() {
        return Err(IrError::Attribute {
            layer,
            attribute: "type".into(),
            problem: "is missing".into(),
        });
    }
    let version = node.attribute("version").unwrap_or("").to_string();
    let data = child(node, "data")
        .map(|d| {
            d.attributes()
                .map(|a| (a.name().to_string(), a.value().to_string()))
                .collect()
        })
        .unwrap_or_default();
    let ports = |section: &str| -> Result<Vec<RawPort>, IrError> {
        match child(node, section) {
            Some(s) => elements(s, "port")
                .map(|p| parse_port(p, &layer, section))
                .collect(),
            None => Ok(Vec::new()),
        }
    };
    let inputs = ports("input")?;
    let outputs = ports("output")?;
    let mut seen = std::collections::HashSet::new();
    if let Some(p) = inputs.iter().chain(&outputs).find(|p| !seen.insert(p.id)) {
        return Err(IrError::BadPort {
            layer,
            problem: format!("port id {} is declared twice", p.id),
        });
    }
    Ok(RawLayer {
        layer,
        version,
        data,
        inputs,
        outputs,
    })
}

fn parse_port(node: Node<'_, '_>, layer: &LayerRef, section: &str) -> Result<RawPort, IrError> {
    let bad = |problem: String| IrError::BadPort {
        layer: layer.clone(),
        problem,
    };
    let id_text = node
        .attribute("id")
        .ok_or_else(|| bad(format!("an {section} port has no id")))?;
    let id = parse_u64(id_text).ok_or_else(|| {
        bad(format!(
            "{section} port id '{id_text}' is not a non-negative integer"
        ))
    })?;
    let texts: Vec<&str> = elements(node, "dim")
        .map(|d| d.text().unwrap_or(""))
        .collect();
    let dims = IrShape::parse_dims(texts.iter().copied()).ok_or_else(|| {
        bad(format!(
            "{section} port {id} has dims {texts:?}, which are not sizes, -1, ? or ranges"
        ))
    })?;
    Ok(RawPort {
        id,
        precision: node.attribute("precision").map(str::to_string),
        dims,
    })
}

fn parse_edge(node: Node<'_, '_>, index: usize) -> Result<RawEdge, IrError> {
    let get = |name: &str| -> Result<u64, IrError> {
        let text = node
            .attribute(name)
            .ok_or_else(|| IrError::NotIr(format!("edge #{index} has no {name} attribute")))?;
        parse_u64(text).ok_or_else(|| {
            IrError::NotIr(format!(
                "edge #{index} has {name}='{text}', which is not a non-negative integer"
            ))
        })
    };
    Ok(RawEdge {
        from_layer: get("from-layer")?,
        from_port: get("from-port")?,
        to_layer: get("to-layer")?,
        to_port: get("to-port")?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const NET: &str = r#"<?xml version="1.0"?>
<net name="m" version="11">
  <layers>
    <layer id="0" name="x" type="Parameter" version="opset1">
      <data shape="3,1" element_type="f32"/>
      <output><port id="0" precision="FP32" names="x"><dim>3</dim><dim>1</dim></port></output>
    </layer>
    <layer id="1" name="out" type="Result" version="opset1">
      <input><port id="0" precision="FP32"><dim>3</dim><dim>1</dim></port></input>
    </layer>
  </layers>
  <edges><edge from-layer="0" from-port="0" to-layer="1" to-port="0"/></edges>
  <rt_info><info name="x" value="y"/></rt_info>
</net>"#;

    #[test]
    fn reads_layers_ports_and_edges() {
        let net = parse(NET, "m.xml").unwrap();
        assert_eq!(net.version, 11);
        assert_eq!(net.layers.len(), 2);
        assert_eq!(net.layers[0].attr("shape"), Some("3,1"));
        assert_eq!(net.layers[0].outputs[0].dims, IrShape::fixed(&[3, 1]));
        assert_eq!(net.layers[1].inputs[0].precision.as_deref(), Some("FP32"));
        assert_eq!(
            net.edges,
            vec![RawEdge {
                from_layer: 0,
                from_port: 0,
                to_layer: 1,
                to_port: 0
            }]
        );
    }

    #[test]
    fn malformed_xml_names_the_file_and_position() {
        let e = parse("<net version=\"11\"><layers>", "bad.xml").unwrap_err();
        let text = e.to_string();
        assert!(text.starts_with("bad.xml: not well-formed XML"), "{text}");
    }

    #[test]
    fn other_ir_versions_are_refused() {
        let e = parse(&NET.replace("version=\"11\"", "version=\"7\""), "m.xml").unwrap_err();
        assert!(matches!(e, IrError::UnsupportedIrVersion(v) if v == "7"));
    }

    #[test]
    fn repeated_port_id_is_refused() {
        let text = NET.replace(
            "<input><port id=\"0\" precision=\"FP32\"><dim>3</dim><dim>1</dim></port></input>",
            "<input><port id=\"0\"/><port id=\"0\"/></input>",
        );
        let e = parse(&text, "m.xml").unwrap_err();
        assert_eq!(
            e.to_string(),
            "layer 1 'out' (Result): port id 0 is declared twice"
        );
    }

    #[test]
    fn non_numeric_ids_are_refused() {
        let e = parse(&NET.replace("id=\"1\" name", "id=\"one\" name"), "m.xml").unwrap_err();
        assert!(e.to_string().contains("has id 'one'"), "{e}");
        let e = parse(&NET.replace("to-layer=\"1\"", "to-layer=\"-1\""), "m.xml").unwrap_err();
        assert!(e.to_string().contains("to-layer='-1'"), "{e}");
    }
}
