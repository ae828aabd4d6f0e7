/**
 * A fetch Response over a body already read whole, for keepAliveFetch. Node's `new Response(buffer)`
 * wraps the buffer in a web ReadableStream (undici's body extraction, a transferable stream, and a
 * reader the AI SDK then walks with promises): about 0.05 ms of CPU per judge call, for a body that is
 * already in memory. This one hands the buffer over directly: `text()`, `json()`, `arrayBuffer()`,
 * `bytes()`, and a `body` whose reader yields it as one chunk (what the AI SDK reads); anything else
 * asked of `body` (pipeThrough, tee…) gets a real ReadableStream, made then.
 */

/** Response headers from node:http's record, read as fetch's Headers are (lower-case, values joined). */
class BufferedHeaders {
  private readonly map = new Map<string, string>();
  constructor(raw: Record<string, string | string[] | undefined>) {
    for (const [k, v] of Object.entries(raw)) {
      if (v === undefined) continue;
      this.map.set(k.toLowerCase(), Array.isArray(v) ? v.join(", ") : v);
    }
  }
  get(name: string): string | null {
    return this.map.get(name.toLowerCase()) ?? null;
  }
  has(name: string): boolean {
    return this.map.has(name.toLowerCase());
  }
  forEach(cb: (value: string, key: string, parent: BufferedHeaders) => void): void {
    for (const [k, v] of this.sorted()) cb(v, k, this);
  }
  entries(): IterableIterator<[string, string]> {
    return this.sorted()[Symbol.iterator]();
  }
  keys(): IterableIterator<string> {
    return this.sorted()
      .map(([k]) => k)
      [Symbol.iterator]();
  }
  values(): IterableIterator<string> {
    return this.sorted()
      .map(([, v]) => v)
      [Symbol.iterator]();
  }
  [Symbol.iterator](): IterableIterator<[string, string]> {
    return this.entries();
  }
  getSetCookie(): string[] {
    const v = this.map.get("set-cookie");
    return v === undefined ? [] : [v];
  }
  /** as fetch's Headers iterate: sorted by name */
  private sorted(): [string, string][] {
    return [...this.map].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  }
}

const decoder = new TextDecoder();

/** Node's ReadableStream is async-iterable; the DOM typings in use here do not say so. */
type Iterable = AsyncIterable<Uint8Array> & {
  values(o?: { preventCancel?: boolean }): AsyncIterableIterator<Uint8Array>;
};

/** `body`: a reader that yields the buffer once; other ReadableStream methods on a real stream. */
function bufferedBody(data: Uint8Array, consume: () => void): ReadableStream<Uint8Array> {
  let stream: ReadableStream<Uint8Array> | undefined;
  const real = () => {
    stream ??= new ReadableStream<Uint8Array>({
      start(c) {
        if (data.byteLength) c.enqueue(data);
        c.close();
      },
    });
    return stream;
  };
  const body = {
    get locked() {
      return stream?.locked ?? false;
    },
    getReader(opts?: { mode?: "byob" }) {
      if (opts?.mode || stream) return real().getReader(opts as undefined);
      consume();
      let done = data.byteLength === 0;
      return {
        closed: Promise.resolve(undefined),
        async read() {
          if (done) return { done: true as const, value: undefined };
          done = true;
          return { done: false as const, value: data };
        },
        async cancel() {
          done = true;
        },
        releaseLock() {},
      };
    },
    cancel: (reason?: unknown) => real().cancel(reason),
    pipeThrough: (t: ReadableWritablePair<unknown, Uint8Array>, o?: StreamPipeOptions) =>
      real().pipeThrough(t, o),
    pipeTo: (d: WritableStream<Uint8Array>, o?: StreamPipeOptions) => real().pipeTo(d, o),
    tee: () => real().tee(),
    values: (o?: { preventCancel?: boolean }) => (real() as unknown as Iterable).values(o),
    [Symbol.asyncIterator]: () => (real() as unknown as Iterable)[Symbol.asyncIterator](),
  };
  return body as unknown as ReadableStream<Uint8Array>;
}

export function bufferedResponse(
  data: Buffer | null,
  init: {
    status: number;
    statusText?: string;
    headers: Record<string, string | string[] | undefined>;
    url: string;
  },
): Response {
  let used = false;
  const consume = () => {
    if (used) throw new TypeError("Body is unusable: Body has already been read");
    used = true;
  };
  const bytes = data ? new Uint8Array(data.buffer, data.byteOffset, data.byteLength) : new Uint8Array(0);
  let body: ReadableStream<Uint8Array> | null | undefined;
  const res = {
    status: init.status,
    statusText: init.statusText ?? "",
    ok: init.status >= 200 && init.status < 300,
    headers: new BufferedHeaders(init.headers),
    url: init.url,
    redirected: false,
    type: "basic" as const,
    get bodyUsed() {
      return used;
    },
    get body() {
      if (body === undefined) body = data ? bufferedBody(bytes, consume) : null;
      return body;
    },
    async text() {
      consume();
      return decoder.decode(bytes);
    },
    async json() {
      consume();
      return JSON.parse(decoder.decode(bytes));
    },
    async arrayBuffer() {
      consume();
      return bytes.slice().buffer;
    },
    async bytes() {
      consume();
      return bytes.slice();
    },
    async blob() {
      consume();
      return new Blob([bytes.slice()], { type: res.headers.get("content-type") ?? "" });
    },
    async formData(): Promise<FormData> {
      throw new TypeError("formData() is not supported on a judge's response");
    },
    clone() {
      if (used) throw new TypeError("Response.clone: Body has already been consumed.");
      return bufferedResponse(data, init);
    },
  };
  return res as unknown as Response;
}
