/**
 * The MCP client side of a stdio server we spawned ourselves (see `child.ts`). The SDK's
 * `StdioClientTransport` spawns its own child without a process group, so it cannot stop a
 * wrapper's tree; this transport only speaks over pipes and leaves the process to its owner.
 * Framing is the SDK's own (`ReadBuffer`, `serializeMessage`).
 */
import { ReadBuffer, serializeMessage } from '@modelcontextprotocol/sdk/shared/stdio.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import type { ServerProcess } from './child';

/** JSON-RPC over an already running child's stdin/stdout. `close()` ends stdin only. */
export class ChildStdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  private readonly readBuffer = new ReadBuffer();
  private started = false;
  private closedOnce = false;

  constructor(private readonly proc: ServerProcess) {}

  async start(): Promise<void> {
    if (this.started) throw new Error('ChildStdioTransport already started');
    this.started = true;
    const { child } = this.proc;
    child.stdout?.on('data', (chunk: Buffer) => {
      try {
        this.readBuffer.append(chunk);
      } catch (error) {
        // Over the SDK's buffer limit: the stream cannot be framed any more.
        this.onerror?.(error as Error);
        void this.close();
        return;
      }
      this.drain();
    });
    child.stdout?.on('error', (error: Error) => this.onerror?.(error));
    child.stdin?.on('error', (error: Error) => this.onerror?.(error));
    void this.proc.closed.then(() => this.finish());
  }

  async send(message: JSONRPCMessage): Promise<void> {
    const stdin = this.proc.child.stdin;
    if (this.closedOnce || !stdin || stdin.destroyed || stdin.writableEnded) throw new Error('Not connected');
    if (!stdin.write(serializeMessage(message))) await new Promise<void>((resolve) => stdin.once('drain', resolve));
  }

  async close(): Promise<void> {
    this.proc.endStdin();
    this.finish();
  }

  private drain(): void {
    for (;;) {
      let message: JSONRPCMessage | null;
      try {
        message = this.readBuffer.readMessage();
      } catch (error) {
        // One bad line (a server logging to stdout) is reported, the next ones still parse.
        this.onerror?.(error as Error);
        continue;
      }
      if (message === null) return;
      this.onmessage?.(message);
    }
  }

  private finish(): void {
    if (this.closedOnce) return;
    this.closedOnce = true;
    this.readBuffer.clear();
    this.onclose?.();
  }
}
