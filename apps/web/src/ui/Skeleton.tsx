/** A placeholder of fixed size so nothing shifts when data arrives. */
export function Skeleton({ width = '100%', height = '1em' }: { width?: string; height?: string }) {
  return <span className="skeleton" style={{ width, height }} aria-hidden="true" />;
}
