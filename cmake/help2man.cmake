# Writes man pages from the binary's own --help (so they cannot say other
# than it): OUT/aiwolf.1 from `aiwolf --help`, and OUT/aiwolf-CMD.1 from
# `aiwolf CMD --help` for each command that `aiwolf --help` lists.
#   cmake -DBIN=build/aiwolf -DOUT=build/man -DVERSION=0.1.0 -P help2man.cmake
foreach(v IN ITEMS BIN OUT VERSION)
  if(NOT ${v})
    message(FATAL_ERROR "help2man.cmake: ${v} is not set")
  endif()
endforeach()
file(MAKE_DIRECTORY ${OUT})

# roff: a backslash is \e, a line starting with . or ' is escaped with \&
function(roff_text in outvar)
  string(REPLACE "\\" "\\e" t "${in}")
  string(REGEX REPLACE "(^|\n)([.'])" "\\1\\\\&\\2" t "${t}")
  set(${outvar} "${t}" PARENT_SCOPE)
endfunction()

function(write_page file name summary help)
  roff_text("${help}" body)
  roff_text("${summary}" sum)
  string(TOUPPER "${name}" upper)
  file(WRITE ${file}
    ".TH ${upper} 1 \"\" \"aiwolf-lua ${VERSION}\" \"User Commands\"\n"
    ".SH NAME\n${name} \\- ${sum}\n"
    ".SH DESCRIPTION\n.nf\n${body}\n.fi\n"
    ".SH SEE ALSO\n\\fBaiwolf\\fR(1); the documents in PREFIX/share/doc/aiwolf-lua/docs/\n")
endfunction()

execute_process(COMMAND ${BIN} --help OUTPUT_VARIABLE top RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "help2man.cmake: ${BIN} --help failed")
endif()
write_page(${OUT}/aiwolf.1 aiwolf "AIWolf (Werewolf) games between sandboxed Lua agents" "${top}")
# (A ';' in a summary would split CMake's list of lines: read them with
# ',' in its place.)
string(REPLACE ";" "," top_lines "${top}")
string(REGEX MATCHALL "\n  [a-z]+ +[^\n]+" lines "${top_lines}")
foreach(line IN LISTS lines)
  string(REGEX REPLACE "^\n  ([a-z]+) +([^\n]+)$" "\\1" cmd "${line}")
  string(REGEX REPLACE "^\n  ([a-z]+) +([^\n]+)$" "\\2" summary "${line}")
  execute_process(COMMAND ${BIN} ${cmd} --help OUTPUT_VARIABLE help RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "help2man.cmake: ${BIN} ${cmd} --help failed")
  endif()
  write_page(${OUT}/aiwolf-${cmd}.1 aiwolf-${cmd} "${summary}" "${help}")
endforeach()
