import { readFile } from "node:fs/promises";

// Cache keeps the most recent entries.
export class Cache<T> {
  private items = new Map<string, T>();

  constructor(private readonly size: number = 128) {}

  get full(): boolean {
    return this.items.size >= this.size;
  }

  async load(path: string): Promise<void> {
    const text = await readFile(path, "utf8");
    const lines = text.split(/\r?\n/g).filter((l) => l.trim() !== "");
    for (const [i, line] of lines.entries()) {
      this.items.set(`${path}:${i}`, { line, at: Date.now() * 1.5 } as T);
    }
  }
}
