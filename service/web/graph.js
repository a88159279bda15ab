// The memory graph: pages, pending facts (held ones drawn apart), authored links
// and learned co-selection. Laid out once; an action then updates it in place:
// a node that stays keeps its position, a new node is placed beside what it
// links to, clear of every label, and nothing else moves.
"use strict";

const LABEL_CHARS = 18; // a node's label; the full title shows on hover
const LABELLED_UP_TO = 60;
const MAX_FIT_ZOOM = 1.3; // larger graphs label only core, hit, hovered and selected nodes
const BOX = { includeNodes: true, includeEdges: false, includeLabels: true };

const GRAPH_STYLE = [
  { selector: "node", style: {
    "background-color": "#3867d6", label: "data(label)", "font-size": 11,
    width: "mapData(degree, 0, 20, 10, 30)", height: "mapData(degree, 0, 20, 10, 30)",
    color: "#1d232b", "text-valign": "bottom", "text-margin-y": 2,
    "text-wrap": "ellipsis", "text-max-width": 96, "min-zoomed-font-size": 6,
    "text-background-color": "#f6f7f9", "text-background-opacity": 0.85,
    "text-background-padding": 1 } },
  { selector: "node.quiet", style: { label: "" } },
  { selector: "node[core = 'yes']", style: { "border-width": 3, "border-color": "#f7b731" } },
  { selector: "node[kind = 'pending']", style: {
    shape: "diamond", "background-color": "#f7b731", "border-style": "dashed",
    "border-width": 1, "border-color": "#a5781b" } },
  { selector: "node[held = 'yes']", style: {
    shape: "octagon", "background-color": "#ffffff", "border-style": "solid",
    "border-width": 3, "border-color": "#c23616", color: "#c23616" } },
  { selector: "edge", style: { width: 1, "line-color": "#9aa5b1", "curve-style": "bezier" } },
  { selector: "edge[kind = 'learned']", style: {
    "line-color": "#20bf6b", width: "mapData(weight, 0, 10, 1, 6)" } },
  { selector: "edge[kind = 'pending']", style: { "line-style": "dashed",
    "line-color": "#f7b731" } },
  { selector: "node.hit", style: { label: "data(label)",
    "background-color": "mapData(score, 0, 1, #f8c0ca, #c0143c)",
    "border-width": 2, "border-color": "#7a0c25" } },
  { selector: "node.hover", style: { label: "data(label)" } },
  { selector: ":selected", style: { label: "data(label)", "border-width": 4,
    "border-color": "#1d232b" } },
];

function shortLabel(text) {
  const clean = String(text || "").replace(/\s+/g, " ").trim();
  return clean.length <= LABEL_CHARS ? clean : clean.slice(0, LABEL_CHARS - 1) + "…";
}

function showUnavailable(graph) {
  document.getElementById("graph").hidden = true;
  document.getElementById("legend").hidden = true;
  document.getElementById("unavailable").hidden = false;
  document.getElementById("unavailable-reason").textContent =
    "Tier: " + graph.tier + ". " + graph.reason;
  document.getElementById("unavailable-action").textContent = graph.action === "settings"
    ? "Change the setting in the workspace's config.toml, then restart the service."
    : "Migrate this workspace to tier v3: run `memory config migrate --to-v3`, " +
      "then restart the service.";
}

function nodeData(n) {
  const title = n.title || n.id;
  return { id: n.id, label: shortLabel(title), full: title, kind: n.kind,
           core: n.core ? "yes" : "no", held: n.held ? "yes" : "no", degree: n.degree };
}

function edgeData(e) {
  return { id: `${e.kind}:${e.source}>${e.target}`, source: e.source, target: e.target,
           kind: e.kind, weight: e.weight || 1 };
}

async function loadGraph() {
  let graph;
  try {
    graph = await api("/v1/memory-graph");
  } catch (err) {
    document.getElementById("counts").textContent = err.message;
    return;
  }
  if (!graph.available) {
    showUnavailable(graph);
    return;
  }
  const c = graph.counts;
  document.getElementById("counts").textContent =
    `${c.pages} pages · ${c.pending} pending` + (c.held ? ` (${c.held} held)` : "") +
    ` · ${c.authored_edges} links · ${c.learned_edges} learned edges` +
    (c.dangling_links_dropped ? ` · ${c.dangling_links_dropped} dangling links not drawn` : "");
  if (state.cy) {
    updateGraph(graph);
  } else {
    drawGraph(graph);
  }
  document.body.dataset.graphReady = "yes";
}

function drawGraph(graph) {
  const dense = graph.nodes.length > LABELLED_UP_TO;
  const elements = graph.nodes.map((n) => ({
    data: { ...nodeData(n), score: 0 }, classes: dense && !n.core ? "quiet" : "",
  })).concat(graph.edges.map((e) => ({ data: edgeData(e) })));
  state.cy = cytoscape({
    container: document.getElementById("graph"),
    elements,
    style: GRAPH_STYLE,
    layout: graph.nodes.length > 400
      ? { name: "grid", avoidOverlap: true, avoidOverlapPadding: 60 }
      : { name: "cose", animate: false, componentSpacing: 30, idealEdgeLength: () => 80,
          padding: 30, nodeDimensionsIncludeLabels: true },
    maxZoom: 3,
  });
  spreadLabels(state.cy);
  state.cy.fit(undefined, 30);
  if (state.cy.zoom() > MAX_FIT_ZOOM) { // a small graph is not blown up: labels keep their room
    state.cy.zoom(MAX_FIT_ZOOM);
    state.cy.center();
  }
  state.cy.on("tap", "node", (evt) => selectNode(evt.target.id()));
  const tip = document.getElementById("tooltip");
  state.cy.on("mouseover", "node", (evt) => {
    evt.target.addClass("hover");
    const at = evt.renderedPosition || evt.target.renderedPosition();
    tip.textContent = evt.target.data("full") +
      (evt.target.hasClass("hit") ? " · score " + evt.target.data("score").toFixed(2) : "");
    tip.style.left = (at.x + 12) + "px";
    tip.style.top = (at.y + 12) + "px";
    tip.hidden = false;
  });
  state.cy.on("mouseout", "node", (evt) => {
    evt.target.removeClass("hover");
    tip.hidden = true;
  });
}

// The graph as the service has it now, changed in place: what left is removed,
// what stayed gets its new data (pinned, held, degree) at the same position,
// and what is new is placed by `placeNew`.
function updateGraph(graph) {
  const cy = state.cy;
  const dense = graph.nodes.length > LABELLED_UP_TO;
  const nodes = new Map(graph.nodes.map((n) => [n.id, n]));
  const edges = new Map(graph.edges.map((e) => [edgeData(e).id, e]));
  const added = [];
  cy.batch(() => {
    cy.nodes().filter((n) => !nodes.has(n.id())).remove();
    cy.edges().filter((e) => !edges.has(e.id())).remove();
    for (const n of graph.nodes) {
      const have = cy.getElementById(n.id);
      if (have.length) {
        have.data(nodeData(n));
        have.toggleClass("quiet", dense && !n.core);
      } else {
        added.push(n.id);
        cy.add({ group: "nodes", data: { ...nodeData(n), score: 0 },
                 classes: dense && !n.core ? "quiet" : "" });
      }
    }
    for (const [id, e] of edges) {
      if (cy.getElementById(id).length) cy.getElementById(id).data("weight", e.weight || 1);
      else cy.add({ group: "edges", data: edgeData(e) });
    }
  });
  for (const id of added) {
    if (state.placeAt[id]) cy.getElementById(id).position(state.placeAt[id]);
    else placeNew(cy, cy.getElementById(id), new Set(added));
  }
  state.placeAt = {};
}

// A new node beside the nodes it links to (or in the middle of the view), then
// stepped outwards on a spiral until its labelled box overlaps no other: only
// the new node moves.
function placeNew(cy, node, fresh) {
  const linked = node.neighborhood("node").filter((n) => !fresh.has(n.id()));
  const view = cy.extent();
  const around = linked.length
    ? { x: linked.toArray().reduce((s, n) => s + n.position().x, 0) / linked.length,
        y: linked.toArray().reduce((s, n) => s + n.position().y, 0) / linked.length }
    : { x: (view.x1 + view.x2) / 2, y: (view.y1 + view.y2) / 2 };
  const others = cy.nodes().filter((n) => n.id() !== node.id() && n.style("label"))
    .map((n) => n.boundingBox(BOX));
  for (let step = 1; step < 400; step++) {
    const angle = step * 0.9;
    const radius = 30 + step * 6;
    node.position({ x: around.x + radius * Math.cos(angle), y: around.y + radius * Math.sin(angle) });
    const box = node.boundingBox(BOX);
    const clear = others.every((o) =>
      box.x2 + 4 < o.x1 || o.x2 + 4 < box.x1 || box.y2 + 4 < o.y1 || o.y2 + 4 < box.y1);
    if (clear) return;
  }
}

// Push apart nodes whose labelled boxes overlap (the layouts place nodes, not
// their labels), along the axis that needs the smaller move, until none do.
// Run once, when the graph is first laid out.
function spreadLabels(cy) {
  const nodes = cy.nodes().filter((n) => n.style("label")).toArray();
  if (nodes.length > 400) return;
  for (let pass = 0; pass < 50; pass++) {
    let moved = false;
    const boxes = nodes.map((n) => n.boundingBox(BOX));
    for (let i = 0; i < nodes.length; i++) {
      for (let j = i + 1; j < nodes.length; j++) {
        const a = boxes[i], b = boxes[j];
        const dx = Math.min(a.x2, b.x2) - Math.max(a.x1, b.x1);
        const dy = Math.min(a.y2, b.y2) - Math.max(a.y1, b.y1);
        if (dx <= -2 || dy <= -2) continue;
        const pa = nodes[i].position(), pb = nodes[j].position();
        if (dx + 4 < dy + 4) {
          const step = (dx + 4) / 2 * (pa.x <= pb.x ? 1 : -1);
          nodes[i].position({ x: pa.x - step, y: pa.y });
          nodes[j].position({ x: pb.x + step, y: pb.y });
        } else {
          const step = (dy + 4) / 2 * (pa.y <= pb.y ? 1 : -1);
          nodes[i].position({ x: pa.x, y: pa.y - step });
          nodes[j].position({ x: pb.x, y: pb.y + step });
        }
        boxes[i] = nodes[i].boundingBox(BOX);
        boxes[j] = nodes[j].boundingBox(BOX);
        moved = true;
      }
    }
    if (!moved) return;
  }
}
