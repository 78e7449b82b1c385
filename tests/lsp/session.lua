-- A user's session in Neovim (0.7+, its built-in LSP client), headless: open a kernel, wait
-- for syncfix's diagnostics, apply its quick fix, save, wait for the diagnostics to clear.
-- Environment: SYNCFIX (the binary), KERNEL (the file), RESULT (where the report goes),
-- EXPECT ("fix": a racy kernel; "none": a kernel without a launch configuration).
local bin, file, result, expect = os.getenv('SYNCFIX'), os.getenv('KERNEL'), os.getenv('RESULT'), os.getenv('EXPECT')
local report = {}
local function say(s) table.insert(report, s) end
local function finish(ok)
  local f = io.open(result, 'w')
  f:write(table.concat(report, '\n') .. '\n' .. (ok and 'OK' or 'FAILED') .. '\n')
  f:close()
  vim.cmd(ok and 'qall!' or 'cquit!')
end

local ok, err = pcall(function()
  vim.cmd('edit ' .. vim.fn.fnameescape(file))
  local buf = vim.api.nvim_get_current_buf()
  local client = vim.lsp.start_client({ name = 'syncfix', cmd = { bin, 'lsp' }, root_dir = vim.fn.fnamemodify(file, ':h') })
  assert(client, 'the server did not start')
  vim.lsp.buf_attach_client(buf, client)

  assert(vim.wait(120000, function() return #vim.diagnostic.get(buf) > 0 end, 50), 'no diagnostics within 120 s')
  for _, d in ipairs(vim.diagnostic.get(buf)) do
    say(string.format('diagnostic %d:%d %s', d.lnum + 1, d.col + 1, d.message))
    say(string.format('extent %d:%d-%d:%d', d.lnum + 1, d.col + 1, d.end_lnum + 1, d.end_col + 1))
    local info = d.user_data and d.user_data.lsp and d.user_data.lsp.relatedInformation or {}
    for _, r in ipairs(info) do
      local a, b = r.location.range.start, r.location.range['end']
      say(string.format('related %d:%d %s', a.line + 1, a.character + 1, r.message))
      say(string.format('related extent %d:%d-%d:%d', a.line + 1, a.character + 1, b.line + 1, b.character + 1))
    end
  end
  if expect == 'none' then return end

  local d = vim.diagnostic.get(buf)[1]
  local params = {
    textDocument = { uri = vim.uri_from_bufnr(buf) },
    range = { start = { line = d.lnum, character = d.col }, ['end'] = { line = d.end_lnum, character = d.end_col } },
    context = { diagnostics = {} },
  }
  local responses = vim.lsp.buf_request_sync(buf, 'textDocument/codeAction', params, 120000)
  local action
  for _, r in pairs(responses or {}) do
    for _, a in ipairs(r.result or {}) do
      say('action ' .. a.title .. ' (' .. tostring(a.kind) .. ')')
      if a.kind == 'quickfix' and a.edit then action = action or a end
    end
  end
  assert(action, 'no quick fix offered')
  vim.lsp.util.apply_workspace_edit(action.edit, 'utf-16')
  vim.cmd('write')
  assert(vim.wait(120000, function() return #vim.diagnostic.get(buf) == 0 end, 50), 'the diagnostics did not clear after the fix was saved')
  say('cleared')
end)
if not ok then say('error: ' .. tostring(err)) end
finish(ok)
