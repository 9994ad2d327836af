// memcli for pi: the project memory in the system prompt, memcli's tools, the session captured at its end.
// Written by `memcli hooks install --agent pi`; `memcli hooks uninstall --agent pi` removes it. Edit it
// and it is yours: `memcli hooks status` shows it as modified, and install leaves it alone.
//
// pi has no hooks and no MCP (by design: extensions are how it is extended), so this extension runs
// the commands other agents' hooks run, and serves memcli's tools by talking to `memcli mcp`.
import type { ExtensionAPI } from "@mariozechner/pi-coding-agent";
import { type ChildProcess, spawn } from "node:child_process";

const SESSION_START = "memcli hooks session-start --agent pi"; // prints the memory context
const CAPTURE = "memcli extract --hook"; // hands the session to memcli's worker and returns at once
const SERVER = "memcli mcp"; // memcli's tools (the Model Context Protocol over stdio)
const TOOLS_WAIT_MS = 10_000; // how long a prompt waits for memcli's tools to come up
const START_TIMEOUT_MS = 30_000;
const CAPTURE_TIMEOUT_MS = 10_000;

type Json = any;

/** The stdout of `command` fed `input` as JSON; "" when it fails or outlives `timeoutMs`. */
function run(command: string, cwd: string, input: Json, timeoutMs: number): Promise<string> {
	const [file, ...args] = command.split(" ");
	return new Promise((resolve) => {
		let out = "";
		const child = spawn(file, args, { cwd, stdio: ["pipe", "pipe", "ignore"] });
		const timer = setTimeout(() => child.kill(), timeoutMs);
		const done = (text: string) => {
			clearTimeout(timer);
			resolve(text);
		};
		child.stdout?.setEncoding("utf8");
		child.stdout?.on("data", (chunk: string) => {
			out += chunk;
		});
		child.on("error", () => done("")); // memcli not on PATH: nothing to add, nothing to capture
		child.on("close", (code) => done(code === 0 ? out : ""));
		child.stdin?.on("error", () => {});
		child.stdin?.end(JSON.stringify(input));
	});
}

/** `memcli mcp`, spoken to as an MCP client: newline-delimited JSON-RPC on its stdin and stdout. */
class Server {
	private child: ChildProcess;
	private nextId = 1;
	private waiting = new Map<number, { resolve: (result: Json) => void; reject: (error: Error) => void }>();
	private buffer = "";
	private stderr = "";
	private ended: Error | undefined;

	constructor(cwd: string) {
		const [file, ...args] = SERVER.split(" ");
		this.child = spawn(file, args, { cwd, stdio: ["pipe", "pipe", "pipe"] });
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
			this.end(new Error(`${SERVER} exited (${code})${why ? `: ${why}` : ""}`));
		});
	}

	/** memcli's tools and the server's instructions (initialize, then tools/list). */
	async tools(): Promise<{ tools: Json[]; instructions: string }> {
		const init = await this.request("initialize", {
			protocolVersion: "2025-11-25",
			capabilities: {},
			clientInfo: { name: "pi-memcli", version: "1" },
		});
		this.send({ jsonrpc: "2.0", method: "notifications/initialized" });
		const tools: Json[] = [];
		let cursor: string | undefined;
		do {
			const page = await this.request("tools/list", cursor ? { cursor } : {});
			tools.push(...(page?.tools ?? []));
			cursor = page?.nextCursor;
		} while (cursor);
		return { tools, instructions: typeof init?.instructions === "string" ? init.instructions : "" };
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
		this.end(new Error(`${SERVER} closed`));
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
				// the server's own requests: a ping is answered, nothing else is asked of a client without capabilities
				if (message.id !== undefined) {
					const reply = message.method === "ping" ? { result: {} } : { error: { code: -32601, message: "not supported" } };
					this.send({ jsonrpc: "2.0", id: message.id, ...reply });
				}
				continue;
			}
			const waiter = this.waiting.get(message?.id);
			if (!waiter) continue;
			this.waiting.delete(message.id);
			if (message.error) waiter.reject(new Error(message.error.message ?? `${SERVER}: error`));
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

function within<T>(promise: Promise<T>, ms: number): Promise<T | undefined> {
	return new Promise((resolve) => {
		const timer = setTimeout(() => resolve(undefined), ms);
		timer.unref();
		promise.then(
			(value) => {
				clearTimeout(timer);
				resolve(value);
			},
			() => {
				clearTimeout(timer);
				resolve(undefined);
			},
		);
	});
}

export default function memcli(pi: ExtensionAPI) {
	let server: Server | undefined;
	let tools: Promise<{ tools: Json[]; instructions: string }> | undefined;
	let context: Promise<string> = Promise.resolve("");
	let registered = false;

	const payload = (ctx: Json, event: string, more: Json) => ({
		session_id: ctx.sessionManager.getSessionId(),
		transcript_path: ctx.sessionManager.getSessionFile(),
		cwd: ctx.cwd,
		hook_event_name: event,
		...more,
	});

	const register = (listed: Json[]) => {
		for (const tool of listed) {
			pi.registerTool({
				name: tool.name,
				label: tool.title ?? tool.annotations?.title ?? tool.name,
				description: tool.description ?? "",
				parameters: tool.inputSchema ?? { type: "object", properties: {} },
				async execute(_toolCallId: string, params: Json, signal?: AbortSignal) {
					if (!server) throw new Error(`${SERVER} is not running`);
					const result = await server.request("tools/call", { name: tool.name, arguments: params }, signal);
					const text = (result?.content ?? [])
						.filter((block: Json) => block?.type === "text")
						.map((block: Json) => block.text)
						.join("\n");
					if (result?.isError) throw new Error(text || `${tool.name} failed`);
					return { content: [{ type: "text" as const, text }], details: result?.structuredContent ?? {} };
				},
			});
		}
	};

	// Both start with the session and run while pi starts; the first prompt waits for them.
	pi.on("session_start", (event, ctx) => {
		server = new Server(ctx.cwd);
		tools = server.tools();
		tools.catch(() => {}); // outside a memcli workspace there is no server: no tools, no message
		context = run(SESSION_START, ctx.cwd, payload(ctx, "SessionStart", { source: event.reason }), START_TIMEOUT_MS);
	});

	pi.on("before_agent_start", async (event) => {
		const [served, text] = await Promise.all([tools ? within(tools, TOOLS_WAIT_MS) : undefined, context]);
		if (served && !registered) {
			registered = true;
			register(served.tools);
		}
		const added = [text.trim(), registered ? served?.instructions.trim() : ""].filter(Boolean);
		return added.length ? { systemPrompt: `${event.systemPrompt}\n\n${added.join("\n\n")}` } : undefined;
	});

	pi.on("session_shutdown", async (event, ctx) => {
		server?.close();
		server = undefined;
		// a reload goes on with the same session; quitting, /new, /resume and /fork end it
		if (event.reason === "reload" || !ctx.sessionManager.getSessionFile()) return;
		await run(CAPTURE, ctx.cwd, payload(ctx, "SessionEnd", { reason: event.reason }), CAPTURE_TIMEOUT_MS);
	});
}
