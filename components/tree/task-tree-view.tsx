"use client";

import { useCallback, useEffect, useMemo, useRef, useState } from "react";
import type { TaskTree } from "@/server/tree/get-task-tree";
import { buildTree, nodeTone, type VisNode } from "./build-tree";
import { layoutTree, SEGMENT_PX, type PlacedNode } from "./layout-tree";

const TONE_FILL: Record<string, string> = {
  resolved: "var(--color-resolved)",
  failed: "var(--color-failed)",
  running: "var(--color-running)",
  interrupted: "var(--color-interrupted)",
  pending: "var(--color-pending)",
};

interface View {
  x: number;
  y: number;
  k: number;
}

function fitView(layout: { width: number; height: number; minY: number }, size: { w: number; h: number }): View {
  const k = Math.min(1.6, Math.max(0.2, Math.min((size.w - 80) / Math.max(layout.width, 1), (size.h - 40) / Math.max(layout.height, 1))));
  return { k, x: 40, y: size.h / 2 - (layout.minY + layout.height / 2) * k };
}

function describe(tree: TaskTree, node: VisNode): string {
  if (node.kind === "start") return "task start";
  const first = node.turns[0]!;
  const r = tree.rollouts[tree.turns.rollout[first]!];
  const head = `${r?.kind ?? "rollout"} · turn ${tree.turns.index[first]}`;
  if (node.kind === "segment") return `${head}–${tree.turns.index[node.turns[node.turns.length - 1]!]} (${node.turns.length} turns, click to expand)`;
  return `${head} · ${tree.turns.summary[first] ?? ""}`;
}

/** The turn tree of one task: pan with drag, zoom with the wheel, arrows to move, Enter to expand. */
export function TaskTreeView({ tree }: { tree: TaskTree }) {
  const [expanded, setExpanded] = useState<ReadonlySet<string>>(new Set());
  const [selected, setSelected] = useState<string | null>(null);
  const [hover, setHover] = useState<string | null>(null);
  const root = useMemo(() => buildTree(tree, { expanded }), [tree, expanded]);
  const layout = useMemo(() => layoutTree(root), [root]);
  const box = useRef<HTMLDivElement>(null);
  const [size, setSize] = useState({ w: 800, h: 500 });
  const [view, setView] = useState<View | null>(null);
  const drag = useRef<{ x: number; y: number; vx: number; vy: number } | null>(null);

  useEffect(() => {
    const el = box.current;
    if (!el) return;
    const ro = new ResizeObserver(([entry]) => entry && setSize({ w: entry.contentRect.width, h: entry.contentRect.height }));
    ro.observe(el);
    return () => ro.disconnect();
  }, []);

  // Until the user pans or zooms, the view fits the whole tree.
  const v = view ?? fitView(layout, size);
  const visible = useMemo(() => {
    // Draw only what the viewport shows (plus a margin), so 10,000 turns stay cheap.
    const margin = 60;
    const x0 = (-v.x - margin) / v.k;
    const x1 = (size.w - v.x + margin) / v.k;
    const y0 = (-v.y - margin) / v.k;
    const y1 = (size.h - v.y + margin) / v.k;
    const inside = (p: PlacedNode) => p.x >= x0 && p.x <= x1 && p.y >= y0 && p.y <= y1;
    // A node outside still draws when its parent is inside, so edges leaving the screen stay visible.
    return layout.nodes.filter((p) => inside(p) || (p.parent !== null && inside(p.parent)));
  }, [layout, v.x, v.y, v.k, size]);

  const pathKeys = useMemo(() => {
    const keys = new Set<string>();
    for (let p = selected ? layout.byKey.get(selected) : undefined; p; p = p.parent ?? undefined) keys.add(p.node.key);
    return keys;
  }, [selected, layout]);

  const activate = useCallback((p: PlacedNode) => {
    setSelected(p.node.key);
    if (p.node.kind === "segment") {
      setExpanded((prev) => new Set(prev).add(p.node.key));
      const first = p.node.turns[0];
      if (first !== undefined) setSelected(tree.turns.id[first] ?? null);
    }
  }, [tree]);

  const onKey = (e: React.KeyboardEvent) => {
    const cur = selected ? layout.byKey.get(selected) : layout.nodes[0];
    if (!cur) return;
    const siblings = cur.parent ? layout.nodes.filter((p) => p.parent === cur.parent) : [cur];
    const at = siblings.indexOf(cur);
    let next: PlacedNode | undefined;
    if (e.key === "ArrowRight") next = layout.nodes.find((p) => p.parent === cur);
    else if (e.key === "ArrowLeft") next = cur.parent ?? undefined;
    else if (e.key === "ArrowDown") next = siblings[at + 1];
    else if (e.key === "ArrowUp") next = siblings[at - 1];
    else if (e.key === "Enter") return activate(cur);
    else if (e.key === "Escape") return setSelected(null);
    else return;
    e.preventDefault();
    if (next) setSelected(next.node.key);
  };

  const shown = hover ?? selected;
  const shownNode = shown ? layout.byKey.get(shown)?.node : undefined;
  const totals = root.outcomes;

  return (
    <div className="flex min-h-0 flex-1 flex-col">
      <div className="flex items-center gap-4 border-b border-zinc-200 px-4 py-1.5 text-xs text-zinc-600 dark:border-zinc-800 dark:text-zinc-400">
        <span data-testid="tree-stats">
          {tree.turns.id.length} turns · {tree.rollouts.length} rollouts ({tree.rollouts.filter((r) => r.kind === "root").length} roots,{" "}
          {tree.rollouts.filter((r) => r.kind !== "root").length} branches)
        </span>
        {(["resolved", "failed", "running", "interrupted"] as const).map((o) => (
          <span key={o} className="flex items-center gap-1">
            <span className="inline-block h-2 w-2 rounded-full" style={{ background: TONE_FILL[o] }} />
            {o} {totals[o]}
          </span>
        ))}
        <span className="ml-auto truncate font-mono" data-testid="tree-hover">
          {shownNode ? describe(tree, shownNode) : "drag to pan · wheel to zoom · arrows move · Enter expands"}
        </span>
      </div>
      <div
        ref={box}
        className="relative min-h-0 flex-1 cursor-grab overflow-hidden outline-none active:cursor-grabbing"
        tabIndex={0}
        onKeyDown={onKey}
        onWheel={(e) => {
          const rect = e.currentTarget.getBoundingClientRect();
          const mx = e.clientX - rect.left;
          const my = e.clientY - rect.top;
          const k = Math.min(4, Math.max(0.05, v.k * Math.exp(-e.deltaY * 0.0015)));
          setView({ k, x: mx - ((mx - v.x) * k) / v.k, y: my - ((my - v.y) * k) / v.k });
        }}
        onPointerDown={(e) => {
          drag.current = { x: e.clientX, y: e.clientY, vx: v.x, vy: v.y };
        }}
        onPointerMove={(e) => {
          const d = drag.current;
          if (d && (e.buttons & 1) === 1) setView({ k: v.k, x: d.vx + e.clientX - d.x, y: d.vy + e.clientY - d.y });
        }}
        onPointerUp={() => (drag.current = null)}
      >
        <svg width={size.w} height={size.h} className="absolute inset-0" data-testid="task-tree" role="tree" aria-label="turn tree">
          <defs>
            <linearGradient id="mixed" x1="0" x2="0" y1="0" y2="1">
              <stop offset="50%" stopColor="var(--color-resolved)" />
              <stop offset="50%" stopColor="var(--color-failed)" />
            </linearGradient>
          </defs>
          <g transform={`translate(${v.x},${v.y}) scale(${v.k})`}>
            {visible.map((p) =>
              p.parent ? (
                <path
                  key={`l-${p.node.key}`}
                  d={`M${p.parent.x + (p.parent.node.kind === "segment" ? SEGMENT_PX / 2 : 0)},${p.parent.y} C${(p.parent.x + p.x) / 2 + 10},${p.parent.y} ${(p.parent.x + p.x) / 2 - 10},${p.y} ${p.x - (p.node.kind === "segment" ? SEGMENT_PX / 2 : 0)},${p.y}`}
                  fill="none"
                  strokeWidth={pathKeys.has(p.node.key) ? 2.5 : 1.2}
                  className={pathKeys.has(p.node.key) ? "stroke-zinc-900 dark:stroke-zinc-100" : "stroke-zinc-300 dark:stroke-zinc-700"}
                />
              ) : null,
            )}
            {visible.map((p) => (
              <TreeNode
                key={p.node.key}
                placed={p}
                tree={tree}
                selected={selected === p.node.key}
                onHover={setHover}
                onActivate={activate}
              />
            ))}
          </g>
        </svg>
      </div>
    </div>
  );
}

function TreeNode({
  placed,
  tree,
  selected,
  onHover,
  onActivate,
}: {
  placed: PlacedNode;
  tree: TaskTree;
  selected: boolean;
  onHover: (key: string | null) => void;
  onActivate: (p: PlacedNode) => void;
}) {
  const { node, x, y } = placed;
  const tone = nodeTone(node.outcomes);
  const o = node.outcomes;
  const finished = o.resolved + o.failed;
  const fork = node.children.length > 1;
  const common = {
    onPointerEnter: () => onHover(node.key),
    onPointerLeave: () => onHover(null),
    onClick: (e: React.MouseEvent) => {
      e.stopPropagation();
      onActivate(placed);
    },
    "data-key": node.key,
    "data-kind": node.kind,
    "data-tone": tone,
    role: "treeitem",
    "aria-selected": selected,
    className: "cursor-pointer",
  };
  const fill = tone === "mixed" ? "url(#mixed)" : TONE_FILL[tone];
  const annotated = node.turns.some((i) => (tree.turns.annotations[i] ?? 0) > 0);
  const human = node.turns.some((i) => tree.turns.author[i] === "human");
  return (
    <g transform={`translate(${x},${y})`} {...common}>
      {node.kind === "segment" ? (
        <>
          <rect x={-SEGMENT_PX / 2} y={-6} width={SEGMENT_PX} height={12} rx={6} fill={fill} opacity={0.85} />
          <text y={3.5} textAnchor="middle" className="fill-white text-[9px] font-semibold" pointerEvents="none">
            ×{node.turns.length}
          </text>
        </>
      ) : node.kind === "start" ? (
        <rect x={-6} y={-6} width={12} height={12} rx={2} className="fill-zinc-700 dark:fill-zinc-300" />
      ) : tone === "mixed" ? (
        <>
          <path d="M0,-5 A5,5 0 0,1 0,5 Z" fill={TONE_FILL.failed} />
          <path d="M0,5 A5,5 0 0,1 0,-5 Z" fill={TONE_FILL.resolved} />
        </>
      ) : (
        <circle r={human ? 4 : 5} fill={fill} stroke={human ? "currentColor" : "none"} />
      )}
      {selected && <circle r={9} fill="none" strokeWidth={2} className="stroke-zinc-900 dark:stroke-zinc-100" />}
      {annotated && <circle cx={5} cy={-5} r={2.5} className="fill-amber-500" />}
      {(fork || node.kind === "start") && finished > 0 && (
        <text y={-10} textAnchor="middle" className="fill-zinc-600 text-[9px] tabular-nums dark:fill-zinc-400" pointerEvents="none">
          {o.resolved}/{finished}
        </text>
      )}
    </g>
  );
}
