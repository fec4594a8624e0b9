"use client";

import { useEffect, useImperativeHandle, useRef } from "react";
import { nodeTone } from "./build-tree";
import type { Layout } from "./layout-tree";
import { TONE_HEX } from "./tones";
import type { View } from "./task-tree-view";

const W = 200;
const PAD = 4;

/** Lets the tree move the viewport frame without re-rendering the mini-map. */
export interface MiniMapHandle {
  setView(v: View): void;
}

/**
 * An overview of the whole tree in one canvas (drawn once per layout), with a frame
 * for what the main view shows. Click or drag in it to move there.
 */
export function MiniMap({
  ref,
  layout,
  size,
  onJump,
  rightPx,
}: {
  ref: React.Ref<MiniMapHandle>;
  /** distance from the box's right edge (a panel may lie over it) */
  rightPx: number;
  layout: Layout;
  size: { w: number; h: number } | null;
  onJump: (world: { x: number; y: number }) => void;
}) {
  const canvas = useRef<HTMLCanvasElement>(null);
  // As tall as the tree's shape asks, within bounds, so the overview is not mostly empty.
  const H = Math.round(Math.min(140, Math.max(48, (W * Math.max(layout.height, 1)) / Math.max(layout.width, 1))));
  const frame = useRef<HTMLDivElement>(null);
  const scale = Math.min((W - 2 * PAD) / Math.max(layout.width, 1), (H - 2 * PAD) / Math.max(layout.height, 1));
  const toWorld = (mx: number, my: number) => ({ x: (mx - PAD) / scale, y: (my - PAD) / scale + layout.minY });

  useImperativeHandle(
    ref,
    () => ({
      setView(v: View) {
        const el = frame.current;
        if (!el || !size) return;
        const x0 = Math.max(0, PAD + (-v.x / v.k) * scale);
        const y0 = Math.max(0, PAD + (-v.y / v.k - layout.minY) * scale);
        const x1 = Math.min(W, PAD + ((size.w - v.x) / v.k) * scale);
        const y1 = Math.min(H, PAD + ((size.h - v.y) / v.k - layout.minY) * scale);
        el.style.transform = `translate(${x0}px,${y0}px)`;
        el.style.width = `${Math.max(2, x1 - x0)}px`;
        el.style.height = `${Math.max(2, y1 - y0)}px`;
      },
    }),
    [layout, scale, size, H],
  );

  useEffect(() => {
    const ctx = canvas.current?.getContext("2d");
    if (!ctx) return;
    // The canvas has twice the pixels of its box, for sharp dots on high-density screens.
    ctx.setTransform(2, 0, 0, 2, 0, 0);
    ctx.clearRect(0, 0, W, H);
    const dot = Math.max(1, Math.min(3, scale * 8));
    for (const p of layout.nodes) {
      ctx.fillStyle = TONE_HEX[nodeTone(p.node.outcomes)] ?? TONE_HEX.pending!;
      ctx.fillRect(PAD + p.x * scale - dot / 2, PAD + (p.y - layout.minY) * scale - dot / 2, p.node.kind === "segment" ? dot * 2 : dot, dot);
    }
  }, [layout, scale, H]);

  const jump = (e: React.PointerEvent<HTMLDivElement>) => {
    const r = e.currentTarget.getBoundingClientRect();
    onJump(toWorld(e.clientX - r.left, e.clientY - r.top));
  };

  return (
    <div
      className="absolute bottom-3 z-10 cursor-crosshair overflow-hidden rounded border border-zinc-300 bg-white/90 shadow dark:border-zinc-700 dark:bg-zinc-900/90"
      style={{ width: W, height: H, right: rightPx }}
      data-testid="mini-map"
      aria-label="overview of the tree: click to move there"
      onPointerDown={(e) => {
        e.stopPropagation();
        e.currentTarget.setPointerCapture(e.pointerId);
        jump(e);
      }}
      onPointerMove={(e) => {
        e.stopPropagation();
        if ((e.buttons & 1) === 1) jump(e);
      }}
      onWheel={(e) => e.stopPropagation()}
    >
      <canvas ref={canvas} width={W * 2} height={H * 2} style={{ width: W, height: H }} />
      <div ref={frame} className="pointer-events-none absolute left-0 top-0 border-2 border-blue-500/80 bg-blue-500/10" />
    </div>
  );
}
