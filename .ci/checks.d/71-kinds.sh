#!/usr/bin/env bash
# Layering of object kinds (issue 14): the model layer (models, answers,
# skills, providers, MCP tool servers) lives in sense-agents/src/kinds/ and
# reaches the core only through its object-kind seam (sense-eval/src/kind.rs).
# Fails if one of its types is named in sense-eval again (error texts that
# match the reference, such as "inference(...)", may still be spelt there).
echo "== 71-kinds: no model-layer type in sense-eval"
kinds_hits=$(grep -rnwE 'ModelObj|AnswerObj|SkillObj|McpServerObj|McpToolObj|ModelProvider|ProviderEntry|ToolServerConnector|ToolServer|Obj::(Model|Answer|Skill|McpServer|McpTool)' sense-eval/src || true)
if [ -n "$kinds_hits" ]; then
  echo "$kinds_hits"
  echo "kinds: the names above belong in sense-agents (see ARCHITECTURE.md, 'An object kind')"
  exit 1
fi
echo "kinds ok"
