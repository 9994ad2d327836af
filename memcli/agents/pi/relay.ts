// memcli's tools for one run of pi as memcli's model (memcli/agents/pi/headless.py loads this with
// `pi -e`, in a run where pi's own tools and every other extension are off). pi has no MCP: this
// extension starts the MCP server the run names in MEMCLI_PI_RELAY ({command, args, env}: `memcli mcp
// --relay SOCKET`), lists its tools and registers each under its own name before the session starts.
import type { ExtensionAPI } from "@mariozechner/pi-coding-agent";
import { type ChildProcess, spawn } from "node:child_process";

type Json = any;
const START_TIMEOUT_MS = 60_000;

class Server {
	private child: ChildProcess;
	private nextId = 1;
	private waiting = new Map<number, { resolve: (result: Json) => void; reject: (error: Error) => void }>();
	private buffer = "";
	private stderr = "";
	private ended: Error | undefined;

	constructor(command: string, args: string[], env: Record<string, string>) {
		this.child = spawn(command, args, { env: { ...process.env, ...env }, stdio: ["pipe", "pipe", "pipe"] });
		this.child.stdout?.setEncoding("utf8");
		this.child.stdout?.on("data", (chunk: string) => this.read(chunk));
		this.child.stderr?.setEncoding("utf8");
		this.child.stderr?.on("data", (chunk: string) => {
			this.stderr = (this.stderr + chunk).slice(-2000);
		});
		this.child.stdin?.on("error", () => {});
		this.child.on("error", (error) => this.end(error));
		this.child.on("exit", (code) => {
			const why = this.stderr.trim().split("\n").pop();
			this.end(new Error(`memcli's MCP server exited (${code})${why ? `: ${why}` : ""}`));
		});
	}

	async tools(): Promise<Json[]> {
		await this.request("initialize", {
			protocolVersion: "2025-11-25",
			capabilities: {},
			clientInfo: { name: "pi-memcli-relay", version: "1" },
		});
		this.send({ jsonrpc: "2.0", method: "notifications/initialized" });
		const tools: Json[] = [];
		let cursor: string | undefined;
		do {
			const page = await this.request("tools/list", cursor ? { cursor } : {});
			tools.push(...(page?.tools ?? []));
			cursor = page?.nextCursor;
		} while (cursor);
		return tools;
	}

	request(method: string, params: Json, signal?: AbortSignal): Promise<Json> {
		if (this.ended) return Promise.reject(this.ended);
		const id = this.nextId++;
		return new Promise((resolve, reject) => {
			this.waiting.set(id, { resolve, reject });
			signal?.addEventListener(
				"abort",
				() => {
					if (!this.waiting.delete(id)) return;
					this.send({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: id } });
					reject(new Error("cancelled"));
				},
				{ once: true },
			);
			this.send({ jsonrpc: "2.0", id, method, params });
		});
	}

	close(): void {
		this.end(new Error("memcli's MCP server closed"));
		this.child.stdin?.end(); // the server exits at the end of its input
		setTimeout(() => this.child.kill(), 2000).unref();
	}

	private send(message: Json): void {
		if (this.child.stdin?.writable) this.child.stdin.write(`${JSON.stringify(message)}\n`);
	}

	private read(chunk: string): void {
		this.buffer += chunk;
		for (let at = this.buffer.indexOf("\n"); at >= 0; at = this.buffer.indexOf("\n")) {
			const line = this.buffer.slice(0, at).trim();
			this.buffer = this.buffer.slice(at + 1);
			let message: Json;
			try {
				message = JSON.parse(line);
			} catch {
				continue;
			}
			if (message?.method !== undefined) {
				if (message.id !== undefined) {
					const reply = message.method === "ping" ? { result: {} } : { error: { code: -32601, message: "not supported" } };
					this.send({ jsonrpc: "2.0", id: message.id, ...reply });
				}
				continue;
			}
			const waiter = this.waiting.get(message?.id);
			if (!waiter) continue;
			this.waiting.delete(message.id);
			if (message.error) waiter.reject(new Error(message.error.message ?? "memcli's MCP server: error"));
			else waiter.resolve(message.result);
		}
	}

	private end(error: Error): void {
		if (this.ended) return;
		this.ended = error;
		for (const waiter of this.waiting.values()) waiter.reject(error);
		this.waiting.clear();
	}
}

export default async function relay(pi: ExtensionAPI) {
	const config = JSON.parse(process.env.MEMCLI_PI_RELAY ?? "{}");
	const server = new Server(config.command, config.args ?? [], config.env ?? {});
	const timer = setTimeout(() => server.close(), START_TIMEOUT_MS);
	let listed: Json[];
	try {
		listed = await server.tools();
	} catch (error) {
		// no tools, no run: pi would go on without them, and memcli's run would say nothing useful
		process.stderr.write(`memcli relay: ${(error as Error).message}\n`);
		process.exit(1);
	} finally {
		clearTimeout(timer);
	}
	for (const tool of listed) {
		pi.registerTool({
			name: tool.name,
			label: tool.name,
			description: tool.description ?? "",
			parameters: tool.inputSchema ?? { type: "object", properties: {} },
			async execute(_toolCallId: string, params: Json, signal?: AbortSignal) {
				const result = await server.request("tools/call", { name: tool.name, arguments: params }, signal);
				const text = (result?.content ?? [])
					.filter((block: Json) => block?.type === "text")
					.map((block: Json) => block.text)
					.join("\n");
				if (result?.isError) throw new Error(text || `${tool.name} failed`);
				return { content: [{ type: "text" as const, text }], details: {} };
			},
		});
	}
	pi.on("session_shutdown", async () => server.close());
}
