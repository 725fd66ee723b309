// reflection for OpenCode: written by `reflection init --opencode`; re-running init updates it.
// The thinnest shim: it hands the session to `reflection hook EVENT --host opencode`
// and acts on the answer. The decisions are made by reflection, not here; the shim only
// says so when reflection could not answer at all.
import { spawnSync } from "node:child_process"

const REFLECTION = __REFLECTION_COMMAND__
const TIMEOUT_MS = 90000

function ask(event, payload) {
  const run = spawnSync(REFLECTION[0], [...REFLECTION.slice(1), "hook", event, "--host", "opencode"], {
    input: JSON.stringify(payload),
    encoding: "utf8",
    timeout: TIMEOUT_MS,
  })
  if (run.stderr) console.error(run.stderr.trim()) // diagnostics land in OpenCode's log
  if (run.error || run.status !== 0) {
    // reflection itself could not answer (gone, timed out, crashed): say so, block nothing.
    const why = run.error ? run.error.code || run.error.message : run.signal || `exit status ${run.status}`
    return { message: `reflection: the ${event} check did not run (${why}); it did not block anything.`, level: "warning" }
  }
  try {
    return JSON.parse(run.stdout || "null")
  } catch {
    return null
  }
}

// The one line for the user, as a TUI toast; a missing TUI or a failing call costs nothing.
async function show(client, answer) {
  if (!answer || !answer.message) return
  try {
    const sent = await client.tui.showToast({ body: { message: answer.message, variant: answer.level || "info" } })
    if (sent && sent.error) console.error("reflection: could not show a toast:", sent.error)
  } catch (error) {
    console.error("reflection: could not show a toast:", error)
  }
}

function promptText(parts) {
  return parts
    .filter((part) => part.type === "text" && !part.synthetic)
    .map((part) => part.text)
    .join("\n")
}

export const Reflection = async ({ client, directory }) => {
  const pushed = new Set() // feedback we sent as a prompt: not the person's prompt to score
  return {
    // Prompt submission: score the prompt; context for the agent rides along as a synthetic part.
    "chat.message": async (input, output) => {
      const prompt = promptText(output.parts)
      if (!prompt || pushed.delete(prompt)) return
      const answer = ask("user-prompt-submit", { session_id: input.sessionID, cwd: directory, prompt })
      await show(client, answer)
      if (answer && answer.context) {
        const { id, sessionID, messageID } = output.parts[0]
        output.parts.push({ id: id + "-reflection", sessionID, messageID, type: "text", text: answer.context, synthetic: true })
      }
    },
    // The idle moment (the agent's turn ended): judge it; push on with the feedback when it blocks.
    event: async ({ event }) => {
      if (event.type !== "session.idle") return
      const id = event.properties.sessionID
      const listed = await client.session.messages({ path: { id } })
      const answer = ask("stop", { session_id: id, cwd: directory, messages: listed.data || [] })
      await show(client, answer)
      if (answer && answer.block) {
        pushed.add(answer.block)
        await client.session.prompt({ path: { id }, body: { parts: [{ type: "text", text: answer.block }] } })
      }
    },
  }
}
