"use client";

import { memo, useCallback, useEffect, useLayoutEffect, useMemo, useRef, useState } from "react";
import type { TaskTree } from "@/server/tree/tree-types";
import { useQueryClient } from "@tanstack/react-query";
import { inspectQueries } from "@/components/queries/inspect-keys";
import { useTreeSummaries } from "@/components/queries/use-tree-summaries";
import { buildTree, nodeTone, segmentHiding, type VisNode } from "./build-tree";
import { layoutTree, SEGMENT_PX, type Layout, type PlacedNode } from "./layout-tree";
import { MiniMap, type MiniMapHandle } from "./mini-map";
import { rolloutLabel } from "./rollout-label";
import { columnsOf, stepFrom, type Direction } from "./tree-navigation";
import { TONE_FILL } from "./tones";

/** Screen = world · k + (x, y). */
export interface View {
  x: number;
  y: number;
  k: number;
}

function fitView(layout: Pick<Layout, "width" | "height" | "minY">, size: { w: number; h: number }): View {
  const k = Math.min(1.6, Math.max(0.2, Math.min((size.w - 80) / Math.max(layout.width, 1), (size.h - 40) / Math.max(layout.height, 1))));
  // A tree narrower than the screen sits in the middle rather than against the left edge.
  return { k, x: Math.max(40, (size.w - layout.width * k) / 2), y: size.h / 2 - (layout.minY + layout.height / 2) * k };
}

function centreOn(p: { x: number; y: number }, k: number, size: { w: number; h: number }): View {
  return { k, x: size.w / 2 - p.x * k, y: size.h / 2 - p.y * k };
}

/** The world rectangle nodes are mounted for: the viewport plus one viewport on every side, so short pans mount nothing. */
function cullRect(v: View, size: { w: number; h: number }) {
  return { x0: (-v.x - size.w) / v.k, x1: (2 * size.w - v.x) / v.k, y0: (-v.y - size.h) / v.k, y1: (2 * size.h - v.y) / v.k };
}

/** Does the viewport of `v` still lie inside the rectangle culled for `c` (same zoom)? */
function covered(v: View, c: View, size: { w: number; h: number }): boolean {
  if (v.k !== c.k) return false;
  const r = cullRect(c, size);
  return -v.x / v.k >= r.x0 && (size.w - v.x) / v.k <= r.x1 && -v.y / v.k >= r.y0 && (size.h - v.y) / v.k <= r.y1;
}

function edgePath(p: PlacedNode): string {
  const q = p.parent!;
  const x0 = q.x + (q.node.kind === "segment" ? SEGMENT_PX / 2 : 0);
  const x1 = p.x - (p.node.kind === "segment" ? SEGMENT_PX / 2 : 0);
  const mx = (x0 + x1) / 2;
  return q.y === p.y ? `M${x0},${q.y}H${x1}` : `M${x0},${q.y}C${mx + 10},${q.y} ${mx - 10},${p.y} ${x1},${p.y}`;
}

interface Hover {
  key: string;
  /** screen position of the node, relative to the tree's box */
  sx: number;
  sy: number;
}

/**
 * The turn tree of one task: pan with drag, zoom with the wheel, arrows move along
 * and across branches, Enter opens a turn or expands a run, Esc closes.
 *
 * Panning never re-renders React: the view lives in a ref and is written to the
 * SVG's transform in one animation frame. React renders only when the viewport
 * leaves the culled rectangle (one screen of margin on every side) or the zoom
 * changes; nodes are memoised so a re-cull mounts only the newly visible ones, and
 * all edges are one <path> per style.
 */
export function TaskTreeView({
  tree,
  inspectedTurnId,
  onInspect,
  occludedRightPx = 0,
}: {
  tree: TaskTree;
  inspectedTurnId: string | null;
  onInspect: (turnId: string | null) => void;
  /** width of a panel lying over the tree's right edge: nodes are kept clear of it */
  occludedRightPx?: number;
}) {
  const [expanded, setExpanded] = useState<ReadonlySet<string>>(new Set());
  const [cursor, setCursor] = useState<string | null>(inspectedTurnId);
  const [hover, setHover] = useState<Hover | null>(null);
  const root = useMemo(() => buildTree(tree, { expanded }), [tree, expanded]);
  const layout = useMemo(() => layoutTree(root), [root]);
  const columns = useMemo(() => columnsOf(layout), [layout]);
  const turnIndexById = useMemo(() => new Map(tree.turns.id.map((id, i) => [id as string, i])), [tree]);

  // A turn opened from outside (the address, the compare page) may hide in a collapsed run: open the run.
  const [seenInspected, setSeenInspected] = useState<string | null>(null);
  if (inspectedTurnId !== seenInspected) {
    setSeenInspected(inspectedTurnId);
    if (inspectedTurnId) {
      setCursor(inspectedTurnId);
      const i = turnIndexById.get(inspectedTurnId);
      const seg = i === undefined ? null : segmentHiding(root, i);
      if (seg) setExpanded((prev) => new Set(prev).add(seg));
    }
  }

  const box = useRef<HTMLDivElement>(null);
  const svgRef = useRef<SVGSVGElement>(null);
  const mini = useRef<MiniMapHandle>(null);
  const [size, setSize] = useState<{ w: number; h: number } | null>(null);
  const viewRef = useRef<View | null>(null);
  const [cull, setCull] = useState<View | null>(null);
  const frame = useRef(0);
  const drag = useRef<{ x: number; y: number; vx: number; vy: number; moved: boolean; id: number } | null>(null);
  const sizeRef = useRef(size);
  const layoutRef = useRef(layout);
  useLayoutEffect(() => {
    sizeRef.current = size;
    layoutRef.current = layout;
  });
  const cullRef = useRef<View | null>(null);

  useEffect(() => {
    const el = box.current;
    if (!el) return;
    const ro = new ResizeObserver(([entry]) => entry && setSize({ w: entry.contentRect.width, h: entry.contentRect.height }));
    ro.observe(el);
    return () => ro.disconnect();
  }, []);

  useLayoutEffect(() => {
    cullRef.current = cull;
  });
  /**
   * The SVG is three screens wide and high and drawn for the culled view; a pan or
   * zoom between re-culls only moves and scales it as a composited layer (CSS
   * transform), which costs no repaint of its thousands of elements.
   */
  const paint = useCallback(() => {
    frame.current = 0;
    const v = viewRef.current;
    const c = cullRef.current;
    const s = sizeRef.current;
    if (!v || !c || !s) return;
    const k = v.k / c.k;
    const tx = v.x + s.w - k * (c.x + s.w);
    const ty = v.y + s.h - k * (c.y + s.h);
    if (svgRef.current) svgRef.current.style.transform = `translate(${tx}px,${ty}px) scale(${k})`;
    mini.current?.setView(v);
  }, []);

  /** Move the view; React hears of it only when new nodes must be mounted. */
  const moveView = useCallback(
    (v: View) => {
      viewRef.current = v;
      if (!frame.current) frame.current = requestAnimationFrame(paint);
      const s = sizeRef.current;
      setCull((c) => (c && s && covered(v, c, s) ? c : v));
    },
    [paint],
  );
  useEffect(() => () => cancelAnimationFrame(frame.current), []);

  // The first view fits the tree (or centres the inspected turn); later data never moves it.
  const initialTurn = useRef(inspectedTurnId);
  // An address that names a turn centres it in the part of the box the panel leaves free.
  const initialOccluded = useRef(occludedRightPx);
  useLayoutEffect(() => {
    if (!size || viewRef.current) return;
    const target = initialTurn.current ? layout.byKey.get(initialTurn.current) : undefined;
    const v = target ? centreOn(target, 1, { w: size.w - initialOccluded.current, h: size.h }) : fitView(layout, { w: size.w - initialOccluded.current, h: size.h });
    viewRef.current = v;
    setCull(v);
  }, [size, layout]);
  // When the box narrows (the inspector opened), keep the node under the cursor on screen.
  const cursorRef = useRef(cursor);
  useLayoutEffect(() => {
    cursorRef.current = cursor;
  });
  useEffect(() => {
    const v = viewRef.current;
    const p = cursorRef.current ? layoutRef.current.byKey.get(cursorRef.current) : undefined;
    if (!size || !v || !p) return;
    const right = size.w - occludedRightPx;
    const sx = p.x * v.k + v.x;
    const sy = p.y * v.k + v.y;
    if (sx < 20 || sx > right - 20 || sy < 20 || sy > size.h - 20) moveView({ k: v.k, x: v.x + (sx > right - 20 ? right - 80 - sx : 80 - sx), y: sy < 20 || sy > size.h - 20 ? size.h / 2 - p.y * v.k : v.y });
  }, [size, occludedRightPx, moveView]);
  // Every render re-applies the transform React does not own.
  useLayoutEffect(() => paint());

  const visible = useMemo(() => {
    if (!cull || !size) return [];
    const r = cullRect(cull, size);
    const inside = (p: PlacedNode) => p.x >= r.x0 && p.x <= r.x1 && p.y >= r.y0 && p.y <= r.y1;
    // A node outside still draws when its parent is inside, so edges leaving the area stay visible.
    return layout.nodes.filter((p) => inside(p) || (p.parent !== null && inside(p.parent)));
  }, [layout, cull, size]);

  const pathKeys = useMemo(() => {
    const keys = new Set<string>();
    for (let p = cursor ? layout.byKey.get(cursor) : undefined; p; p = p.parent ?? undefined) keys.add(p.node.key);
    return keys;
  }, [cursor, layout]);

  // All edges are one path that does not depend on the selection, so moving the cursor
  // repaints only the highlighted path drawn over them, not the whole drawing.
  const plainEdges = useMemo(() => {
    let d = "";
    for (const p of visible) if (p.parent) d += edgePath(p);
    return d;
  }, [visible]);
  const pathEdges = useMemo(() => {
    let d = "";
    for (const key of pathKeys) {
      const p = layout.byKey.get(key);
      if (p?.parent) d += edgePath(p);
    }
    return d;
  }, [pathKeys, layout]);

  const rolloutOfTurn = useCallback((i: number) => tree.turns.rollout[i] ?? -1, [tree]);

  const activate = useCallback(
    (p: PlacedNode) => {
      if (p.node.kind === "segment") {
        setExpanded((prev) => new Set(prev).add(p.node.key));
        const first = p.node.turns[0];
        setCursor(first === undefined ? null : (tree.turns.id[first] ?? null));
      } else if (p.node.kind === "turn") {
        setCursor(p.node.key);
        onInspect(p.node.key);
      } else setCursor(p.node.key);
    },
    [tree, onInspect],
  );
  const activateRef = useRef(activate);
  useLayoutEffect(() => {
    activateRef.current = activate;
  });

  const onNodeClick = useCallback((key: string) => {
    if (drag.current?.moved) return;
    const p = layoutRef.current.byKey.get(key);
    if (p) activateRef.current(p);
  }, []);
  // A press on a turn starts fetching what the inspector will show; the click (on release) opens it.
  const queryClient = useQueryClient();
  const onNodePress = useCallback(
    (key: string) => {
      if (layoutRef.current.byKey.get(key)?.node.kind === "turn") void queryClient.prefetchQuery(inspectQueries.turn(tree.taskId, key));
    },
    [queryClient, tree.taskId],
  );
  const onNodeHover = useCallback((key: string | null) => {
    const v = viewRef.current;
    const p = key ? layoutRef.current.byKey.get(key) : undefined;
    if (!key || !p || !v || drag.current) return setHover(null);
    setHover({ key, sx: p.x * v.k + v.x, sy: p.y * v.k + v.y });
  }, []);

  /** Keep a node on screen after a keyboard move. */
  const reveal = (p: PlacedNode) => {
    const v = viewRef.current;
    if (!v || !size) return;
    const sx = p.x * v.k + v.x;
    const sy = p.y * v.k + v.y;
    const right = size.w - occludedRightPx;
    if (sx < 40 || sx > right - 40 || sy < 30 || sy > size.h - 30) moveView(centreOn(p, v.k, { w: right, h: size.h }));
  };

  const onKey = (e: React.KeyboardEvent) => {
    if (e.target !== e.currentTarget) return;
    const cur = (cursor ? layout.byKey.get(cursor) : undefined) ?? layout.nodes[0];
    if (!cur) return;
    const dirs: Record<string, Direction> = { ArrowRight: "along", ArrowLeft: "back", ArrowUp: "up", ArrowDown: "down" };
    if (e.key === "Enter") {
      e.preventDefault();
      return activate(cur);
    }
    if (e.key === "Escape") {
      // With the inspector open, the inspector closes itself; otherwise Esc clears the cursor.
      if (!inspectedTurnId) setCursor(null);
      return;
    }
    const d = dirs[e.key];
    if (!d) return;
    e.preventDefault();
    const next = cursor ? stepFrom(layout, columns, cur, d, rolloutOfTurn) : cur;
    if (!next) return;
    setCursor(next.node.key);
    setHover(null);
    reveal(next);
    // While the inspector is open it follows the cursor from turn to turn.
    if (inspectedTurnId && next.node.kind === "turn") onInspect(next.node.key);
  };

  const detail = (cull?.k ?? 1) >= 0.45;
  const nodes = useMemo(
    () =>
      visible.map((p) => (
        <TreeNode
          key={p.node.key}
          placed={p}
          selected={cursor === p.node.key}
          inspected={inspectedTurnId === p.node.key}
          annotated={p.node.turns.some((i) => (tree.turns.annotations[i] ?? 0) > 0)}
          author={p.node.kind === "turn" ? authorOf(tree, p.node.turns[0]!) : "agent"}
          isError={p.node.kind === "turn" && tree.turns.isError[p.node.turns[0]!] === 1}
          detail={detail}
          onHover={onNodeHover}
          onPress={onNodePress}
          onClick={onNodeClick}
        />
      )),
    [visible, cursor, inspectedTurnId, tree, detail, onNodeHover, onNodePress, onNodeClick],
  );

  const totals = root.outcomes;
  const hasHuman = useMemo(() => tree.turns.author.some((a) => a !== 0), [tree]);
  const cursorNode = cursor ? layout.byKey.get(cursor)?.node : undefined;
  const hoverNode = hover ? layout.byKey.get(hover.key)?.node : undefined;
  const described = hoverNode ?? cursorNode;
  const describedTurn = described?.turns[0];
  const summaries = useTreeSummaries(tree.taskId, describedTurn === undefined ? null : (tree.turns.id[describedTurn] ?? null));
  const showMini = !!cull && !!size && (layout.width * cull.k > size.w * 1.05 || layout.height * cull.k > size.h * 1.05);

  return (
    <div className="flex min-h-0 min-w-0 flex-1 flex-col">
      <div className="flex items-center gap-3 whitespace-nowrap border-b border-zinc-200 px-4 py-1.5 text-xs text-zinc-600 dark:border-zinc-800 dark:text-zinc-400">
        <span data-testid="tree-stats">
          {tree.turns.id.length} turns · {tree.rollouts.length} rollouts ({tree.rollouts.filter((r) => r.kind === "root").length} roots,{" "}
          {tree.rollouts.filter((r) => r.kind !== "root").length} branches)
        </span>
        {(["resolved", "failed", "running", "interrupted"] as const).filter((o) => o === "resolved" || o === "failed" || totals[o] > 0).map((o) => (
          <span key={o} className="flex items-center gap-1">
            <span className="inline-block h-2 w-2 rounded-full" style={{ background: TONE_FILL[o] }} />
            {o} {totals[o]}
          </span>
        ))}
        {hasHuman && <span className="flex items-center gap-1" title="turns a person or a reviewer's hint wrote">
          <svg width="10" height="10" viewBox="-5 -5 10 10" aria-hidden>
            <path d="M0,-4.5L4.5,0L0,4.5L-4.5,0Z" className="fill-violet-500" />
          </svg>
          human
        </span>}
        <span className="ml-auto min-w-0 truncate font-mono" data-testid="tree-hover">
          {cursorNode ? describe(tree, cursorNode, summaries) : "drag to pan · wheel to zoom · arrows move · Enter opens · Esc closes"}
        </span>
      </div>
      <div
        ref={box}
        className="relative min-h-0 flex-1 cursor-grab touch-none overflow-hidden outline-none focus-visible:ring-2 focus-visible:ring-inset focus-visible:ring-blue-500 active:cursor-grabbing"
        tabIndex={0}
        data-testid="tree-box"
        aria-label="turn tree: arrows move along and across branches, Enter opens a turn, Esc closes"
        onKeyDown={onKey}
        onWheel={(e) => {
          const v = viewRef.current;
          if (!v) return;
          const rect = e.currentTarget.getBoundingClientRect();
          const mx = e.clientX - rect.left;
          const my = e.clientY - rect.top;
          const k = Math.min(4, Math.max(0.05, v.k * Math.exp(-e.deltaY * 0.0015)));
          setHover(null);
          moveView({ k, x: mx - ((mx - v.x) * k) / v.k, y: my - ((my - v.y) * k) / v.k });
        }}
        onPointerDown={(e) => {
          const v = viewRef.current;
          if (!v || e.button !== 0) return;
          drag.current = { x: e.clientX, y: e.clientY, vx: v.x, vy: v.y, moved: false, id: e.pointerId };
        }}
        onPointerMove={(e) => {
          const d = drag.current;
          const v = viewRef.current;
          if (!d || !v || (e.buttons & 1) !== 1) return;
          const dx = e.clientX - d.x;
          const dy = e.clientY - d.y;
          if (!d.moved && Math.abs(dx) + Math.abs(dy) < 4) return;
          if (!d.moved) {
            d.moved = true;
            // Captured only once it is a drag, so that a plain click still lands on the node under it.
            e.currentTarget.setPointerCapture(d.id);
            setHover(null);
          }
          moveView({ k: v.k, x: d.vx + dx, y: d.vy + dy });
        }}
        onPointerUp={() => {
          // The click that follows a drag must not open a node: clear after it fired.
          const d = drag.current;
          if (d?.moved) setTimeout(() => (drag.current = null), 0);
          else drag.current = null;
        }}
      >
        <svg
          ref={svgRef}
          width={(size?.w ?? 0) * 3}
          height={(size?.h ?? 0) * 3}
          className="absolute origin-top-left will-change-transform"
          style={{ left: -(size?.w ?? 0), top: -(size?.h ?? 0) }}
          data-testid="task-tree"
          data-ready={cull ? "true" : "false"}
          data-nodes={visible.length}
          role="tree"
          aria-label="turn tree"
        >
          <defs>
            <linearGradient id="mixed" x1="0" x2="0" y1="0" y2="1">
              <stop offset="50%" stopColor="var(--color-resolved)" />
              <stop offset="50%" stopColor="var(--color-failed)" />
            </linearGradient>
          </defs>
          <g transform={cull && size ? `translate(${cull.x + size.w},${cull.y + size.h}) scale(${cull.k})` : undefined}>
            <path d={plainEdges} fill="none" strokeWidth={1.2} vectorEffect="non-scaling-stroke" className="stroke-zinc-300 dark:stroke-zinc-700" />
            <path d={pathEdges} fill="none" strokeWidth={2.5} vectorEffect="non-scaling-stroke" className="stroke-zinc-900 dark:stroke-zinc-100" />
            {/* Zoomed out, every node's hit area is a transparent stroke of ~8 screen pixels, inherited from here
                rather than set on each of thousands of elements. */}
            <g className="cursor-pointer" stroke={detail ? undefined : "transparent"} strokeWidth={detail ? undefined : 8 / (cull?.k ?? 1)}>
              {nodes}
            </g>
          </g>
        </svg>
        {hover && hoverNode && (
          <div
            className="pointer-events-none absolute z-10 max-w-[420px] rounded border border-zinc-200 bg-white/95 px-2 py-1 text-xs shadow-md dark:border-zinc-700 dark:bg-zinc-900/95"
            style={{ left: Math.max(4, Math.min(hover.sx + 12, (size?.w ?? 0) - occludedRightPx - 310)), top: hover.sy + 12 }}
            data-testid="hover-card"
          >
            <HoverCard tree={tree} node={hoverNode} summaries={summaries} />
          </div>
        )}
        {showMini && (
          <MiniMap
            ref={mini}
            rightPx={occludedRightPx + 12}
            layout={layout}
            size={size}
            onJump={(world) => {
              const v = viewRef.current;
              if (v && size) moveView(centreOn(world, v.k, size));
            }}
          />
        )}
      </div>
    </div>
  );
}

function authorOf(tree: TaskTree, i: number): string {
  return tree.authors[tree.turns.author[i] ?? 0] ?? "agent";
}

/** A turn's one-line summary once summaries have arrived; an ellipsis until then. */
function summaryOf(tree: TaskTree, i: number | undefined, summaries: Record<string, string> | undefined): string {
  const id = i === undefined ? undefined : tree.turns.id[i];
  return (id && summaries?.[id]) ?? "…";
}

function describe(tree: TaskTree, node: VisNode, summaries: Record<string, string> | undefined): string {
  if (node.kind === "start") return "task start";
  const first = node.turns[0]!;
  const r = tree.rollouts[tree.turns.rollout[first]!];
  const head = `${r ? rolloutLabel(r) : "rollout"} · turn ${tree.turns.index[first]}`;
  if (node.kind === "segment") return `${head}–${tree.turns.index[node.turns[node.turns.length - 1]!]} (${node.turns.length} turns, Enter expands)`;
  return `${head} · ${summaryOf(tree, first, summaries)}`;
}

function HoverCard({ tree, node, summaries }: { tree: TaskTree; node: VisNode; summaries: Record<string, string> | undefined }) {
  if (node.kind === "start") {
    const o = node.outcomes;
    return (
      <p>
        task start · {o.resolved}/{o.resolved + o.failed} resolved
      </p>
    );
  }
  const first = node.turns[0]!;
  const r = tree.rollouts[tree.turns.rollout[first]!];
  const author = authorOf(tree, first);
  return (
    <>
      <p className="text-zinc-500">
        {r ? rolloutLabel(r) : "rollout"} · turn {tree.turns.index[first]}
        {node.kind === "segment" && `–${tree.turns.index[node.turns[node.turns.length - 1]!]} (${node.turns.length} turns)`}
        {author && author !== "agent" && <span className="ml-1 text-violet-600 dark:text-violet-400">· {author}</span>}
        {node.children.length > 1 && ` · fork: ${node.outcomes.resolved}/${node.outcomes.resolved + node.outcomes.failed} resolved below`}
      </p>
      <p className="truncate font-mono">
        {node.kind === "segment" ? `${summaryOf(tree, first, summaries)} … ${summaryOf(tree, node.turns.at(-1), summaries)}` : summaryOf(tree, first, summaries)}
      </p>
    </>
  );
}

const TreeNode = memo(function TreeNode({
  placed,
  selected,
  inspected,
  annotated,
  author,
  isError,
  detail,
  onHover,
  onPress,
  onClick,
}: {
  placed: PlacedNode;
  selected: boolean;
  inspected: boolean;
  annotated: boolean;
  author: string;
  isError: boolean;
  detail: boolean;
  onHover: (key: string | null) => void;
  onPress: (key: string) => void;
  onClick: (key: string) => void;
}) {
  const { node, x, y } = placed;
  const tone = nodeTone(node.outcomes);
  const o = node.outcomes;
  const finished = o.resolved + o.failed;
  const fork = node.children.length > 1;
  const fill = tone === "mixed" ? "url(#mixed)" : TONE_FILL[tone];
  const half = node.kind === "segment" ? SEGMENT_PX / 2 : 6;
  const ratio = detail && (fork || node.kind === "start") && finished > 0;
  const events = {
    onPointerEnter: () => onHover(node.key),
    onPointerLeave: () => onHover(null),
    onPointerDown: () => onPress(node.key),
    onClick: (e: React.MouseEvent) => {
      e.stopPropagation();
      onClick(node.key);
    },
    "data-key": node.key,
    "data-kind": node.kind,
    "data-tone": tone,
    role: "treeitem",
    // Only the selected node says so: thousands of aria-selected="false" cost a first render and say nothing.
    "aria-selected": selected || undefined,
  };
  if (!detail) {
    // Zoomed out, a node is a few pixels: one element each with as few attributes as can be
    // (thousands stay cheap); its hit area is the transparent stroke the parent group sets.
    // No class on the thousands of plain nodes: style recalculation is what a first render of a big tree pays for.
    const ring = selected || inspected ? "stroke-zinc-900 dark:stroke-zinc-100" : undefined;
    const ringStyle = ring ? { strokeWidth: 3, vectorEffect: "non-scaling-stroke" as const } : undefined;
    if (node.kind === "turn" && author === "agent" && tone !== "mixed") {
      return <circle cx={x} cy={y} r={5} fill={fill} {...events} className={ring} style={ringStyle} />;
    }
    return (
      <rect
        x={x - half}
        y={y - 6}
        width={2 * half}
        height={12}
        rx={node.kind === "segment" ? 6 : 2}
        fill={node.kind === "start" ? "#71717a" : fill}
        {...events}
        className={ring}
        style={ringStyle}
      />
    );
  }
  return (
    <g
      transform={`translate(${x},${y})`}
      {...events}
    >
      {/* One hit area for the whole node and its label: easier to hit when zoomed out. */}
      <rect x={-half - (ratio ? 24 : 3)} y={-9} width={2 * half + (ratio ? 27 : 6)} height={18} fill="transparent" />
      {node.kind === "segment" ? (
        <>
          <rect x={-SEGMENT_PX / 2} y={-6} width={SEGMENT_PX} height={12} rx={6} fill={fill} opacity={0.85} />
          {detail && (
            <text y={3.5} textAnchor="middle" className="fill-white text-[9px] font-semibold" pointerEvents="none">
              ×{node.turns.length}
            </text>
          )}
        </>
      ) : node.kind === "start" ? (
        <rect x={-6} y={-6} width={12} height={12} rx={2} className="fill-zinc-700 dark:fill-zinc-300" />
      ) : author !== "agent" ? (
        // People's turns (and reviewers' hints) are diamonds with a violet ring, whatever their outcome.
        <path d="M0,-6L6,0L0,6L-6,0Z" fill={fill} strokeWidth={1.5} className={author === "human" ? "stroke-violet-500" : "stroke-amber-500"} />
      ) : tone === "mixed" ? (
        <>
          <path d="M0,-5 A5,5 0 0,1 0,5 Z" fill={TONE_FILL.failed} />
          <path d="M0,5 A5,5 0 0,1 0,-5 Z" fill={TONE_FILL.resolved} />
        </>
      ) : (
        <circle r={5} fill={fill} />
      )}
      {isError && detail && <circle r={2} className="fill-white" pointerEvents="none" />}
      {(selected || inspected) && (
        <circle r={9} fill="none" strokeWidth={inspected ? 2.5 : 1.5} strokeDasharray={inspected ? undefined : "3 2"} className="stroke-zinc-900 dark:stroke-zinc-100" />
      )}
      {annotated && <circle cx={6} cy={-6} r={3} className="fill-amber-500 stroke-white dark:stroke-zinc-950" strokeWidth={1} data-testid="annotation-marker" />}
      {ratio && (
        // Left of the node, where only the incoming edge runs: above it would touch the sibling above.
        <text x={-half - 3} y={-3} textAnchor="end" className="fill-zinc-600 text-[9px] tabular-nums dark:fill-zinc-400" pointerEvents="none">
          {o.resolved}/{finished}
        </text>
      )}
    </g>
  );
});
