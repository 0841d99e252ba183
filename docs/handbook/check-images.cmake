# SPDX-License-Identifier: GPL-2.0-or-later
# SPDX-FileCopyrightText: 2026 Cachescope developers
#
# cmake -DDOCBOOK=index.docbook -DIMAGE_DIR=dir -P check-images.cmake
# Fails when the document names an image that IMAGE_DIR does not have.
file(READ ${DOCBOOK} document)
string(REGEX MATCHALL "fileref=\"[^\"]+\"" filerefs "${document}")
set(missing)
foreach(fileref IN LISTS filerefs)
    string(REGEX REPLACE "^fileref=\"([^\"]+)\"$" "\\1" image "${fileref}")
    if(NOT EXISTS ${IMAGE_DIR}/${image})
        list(APPEND missing ${image})
    endif()
endforeach()
if(missing)
    list(JOIN missing ", " missing_text)
    message(FATAL_ERROR "${DOCBOOK} names images that are not in ${IMAGE_DIR}: ${missing_text}. "
        "Run `tools/dev handbook-screenshots`: it runs the screenshot tests and copies their PNGs there.")
endif()
