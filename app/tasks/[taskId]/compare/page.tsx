import { ComparePage } from "@/components/compare/compare-page";

export const dynamic = "force-dynamic";

export default async function CompareRolloutsPage({
  params,
  searchParams,
}: {
  params: Promise<{ taskId: string }>;
  searchParams: Promise<{ a?: string | string[]; b?: string | string[] }>;
}) {
  const { taskId } = await params;
  const { a, b } = await searchParams;
  const one = (v: string | string[] | undefined) => (Array.isArray(v) ? (v[0] ?? null) : (v ?? null));
  return <ComparePage taskId={taskId} a={one(a)} b={one(b)} />;
}
