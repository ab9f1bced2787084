# Install rules for what add_mlir_library/add_mlir_tool do not install: the
# headers (with TableGen's .inc files and the .td files, for downstream
# TableGen) and the CMake package lib/cmake/fa-mlir. add_mlir_library and
# add_mlir_tool already install our libraries and tools into the export set
# that LLVM's machinery names MLIRTargets (a name local to this project);
# FAMLIRTargets.cmake is that set.
include(CMakePackageConfigHelpers)

set(FA_MLIR_EXPORT_SET MLIRTargets)
set(FA_MLIR_PACKAGE_DIR lib/cmake/fa-mlir)

# The compiler's libraries (not the runtime): their imported targets get
# fa's and MLIR's include directories.
set(FA_MLIR_COMPILER_LIBRARIES
  MLIRFADialect MLIRFASemantics MLIRFALowering MLIRFARaising
  MLIRFATransforms FAPipelines FANVVMPipeline MLIRFAToNVVM
  MLIRFAToRuntime
  FARegistration MLIRCAPIFA FAMLIR-C)

function(fa_mlir_install_headers)
  install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/fa
                    ${PROJECT_SOURCE_DIR}/include/fa-c
    DESTINATION include
    COMPONENT fa-headers
    FILES_MATCHING PATTERN "*.h" PATTERN "*.td"
    PATTERN "Runtime" EXCLUDE)  # fa_mlir_install_runtime's
  install(DIRECTORY ${PROJECT_BINARY_DIR}/include/fa
                    ${PROJECT_BINARY_DIR}/include/fa-c
    DESTINATION include
    COMPONENT fa-headers
    FILES_MATCHING PATTERN "*.inc"
    PATTERN "CMakeFiles" EXCLUDE)
  foreach(target ${FA_MLIR_COMPILER_LIBRARIES})
    if(TARGET ${target})
      target_include_directories(${target} INTERFACE
        $<INSTALL_INTERFACE:include>)
    endif()
  endforeach()
endfunction()

# The runtime: no MLIR, also built alone (FA_RUNTIME_ONLY).
function(fa_mlir_install_runtime)
  install(TARGETS fa_runtime EXPORT ${FA_MLIR_EXPORT_SET}
    LIBRARY DESTINATION lib
    COMPONENT fa_runtime)
  install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/fa/Runtime
    DESTINATION include/fa
    COMPONENT fa_runtime)
endfunction()

function(fa_mlir_install_package)
  configure_package_config_file(
    ${PROJECT_SOURCE_DIR}/cmake/FAMLIRConfig.cmake.in
    ${PROJECT_BINARY_DIR}/cmake/FAMLIRConfig.cmake
    INSTALL_DESTINATION ${FA_MLIR_PACKAGE_DIR})
  write_basic_package_version_file(
    ${PROJECT_BINARY_DIR}/cmake/FAMLIRConfigVersion.cmake
    VERSION ${PROJECT_VERSION}
    COMPATIBILITY SameMinorVersion)
  install(FILES
    ${PROJECT_BINARY_DIR}/cmake/FAMLIRConfig.cmake
    ${PROJECT_BINARY_DIR}/cmake/FAMLIRConfigVersion.cmake
    DESTINATION ${FA_MLIR_PACKAGE_DIR}
    COMPONENT fa-cmake-package)
  install(EXPORT ${FA_MLIR_EXPORT_SET}
    FILE FAMLIRTargets.cmake
    DESTINATION ${FA_MLIR_PACKAGE_DIR}
    COMPONENT fa-cmake-package)
endfunction()
