// For tests/unit/test_extension_js.py: reads a JSON list of drafts on stdin and prints
// whether the extension's send interceptor takes each as already prepared.
import { load } from "./load.mjs";

const { isPrepared } = load(["content/chat/send-interceptor.js"], { Whiteboard: { editorInput: {} } }).SendInterceptor;
let input = "";
for await (const chunk of process.stdin) input += chunk;
process.stdout.write(JSON.stringify(JSON.parse(input).map((draft) => isPrepared(draft))));
