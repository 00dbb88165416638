// A small AMD host: loads webpack-built plugin modules (`define([...deps], factory)`) by script tag and
// hands them the host's single copies of the shared libraries, as Grafana's loader does.

export type SharedModules = Record<string, unknown>;

let pending: { resolve: (exports: unknown) => void; reject: (e: Error) => void; uri: string } | undefined;

export function installDefine(shared: SharedModules): void {
  const define = (deps: string[], factory: (...args: unknown[]) => unknown) => {
    const current = pending;
    if (!current) {
      throw new Error('define() called outside loadAmd()');
    }
    try {
      const args = deps.map((d) => {
        if (d === 'module') {
          return { uri: current.uri };
        }
        if (!(d in shared)) {
          throw new Error(`plugin module wants "${d}", which the host does not share`);
        }
        return shared[d];
      });
      current.resolve(factory(...args));
    } catch (e) {
      current.reject(e instanceof Error ? e : new Error(String(e)));
    }
  };
  Object.assign(define, { amd: true });
  Object.assign(window, { define });
}

/** Loads one AMD module by URL and resolves to what its factory returned. */
export function loadAmd(uri: string): Promise<Record<string, any>> {
  return new Promise((resolve, reject) => {
    pending = { resolve: resolve as (e: unknown) => void, reject, uri };
    const script = document.createElement('script');
    script.src = uri;
    script.onerror = () => reject(new Error(`could not load ${uri}`));
    document.head.appendChild(script);
  });
}
