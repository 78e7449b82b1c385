/*
 * gpucheck stand-in for Arash Partow's bitmap_image.hpp (MIT), which the
 * HeCBench sad-cuda program includes but which is not part of the suite copy
 * in shared/suites/hecbench. It implements only what sad-cuda's main.cu uses:
 * loading an uncompressed 24-bit BMP, width(), height() and
 * get_pixel(x, y, rgb_t&) with (0,0) the top-left pixel, as in the original.
 */
#ifndef INCLUDE_BITMAP_IMAGE_HPP
#define INCLUDE_BITMAP_IMAGE_HPP

#include <cstdint>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

struct rgb_t
{
  unsigned char   red;
  unsigned char green;
  unsigned char  blue;
};

class bitmap_image
{
  public:

    bitmap_image(const std::string& filename)
      : width_(0), height_(0), row_increment_(0)
    {
      load_bitmap(filename);
    }

    inline unsigned int width()  const { return width_;  }
    inline unsigned int height() const { return height_; }

    inline void get_pixel(const unsigned int x, const unsigned int y,
                          unsigned char& red, unsigned char& green, unsigned char& blue) const
    {
      const size_t offset = (size_t)y * row_increment_ + (size_t)x * 3;
      blue  = data_[offset + 0];
      green = data_[offset + 1];
      red   = data_[offset + 2];
    }

    template <typename RGB>
    inline void get_pixel(const unsigned int x, const unsigned int y, RGB& colour) const
    {
      get_pixel(x, y, colour.red, colour.green, colour.blue);
    }

  private:

    static uint32_t le32(const unsigned char* p) { return p[0] | (p[1] << 8) | (p[2] << 16) | ((uint32_t)p[3] << 24); }
    static uint16_t le16(const unsigned char* p) { return (uint16_t)(p[0] | (p[1] << 8)); }

    void load_bitmap(const std::string& filename)
    {
      std::ifstream stream(filename.c_str(), std::ios::binary);
      if (!stream)
      {
        std::cerr << "bitmap_image::load_bitmap() ERROR: bitmap_image - file " << filename << " not found!" << std::endl;
        return;
      }
      unsigned char fh[14], ih[40];
      if (!stream.read(reinterpret_cast<char*>(fh), 14) || !stream.read(reinterpret_cast<char*>(ih), 40))
      {
        std::cerr << "bitmap_image::load_bitmap() ERROR: short file " << filename << std::endl;
        return;
      }
      if (le16(fh) != 19778 /* "BM" */ || le16(ih + 14) != 24 || le32(ih + 16) != 0)
      {
        std::cerr << "bitmap_image::load_bitmap() ERROR: " << filename << " is not an uncompressed 24-bit BMP" << std::endl;
        return;
      }
      const uint32_t off_bits = le32(fh + 10);
      const int32_t  w = (int32_t)le32(ih + 4);
      const int32_t  h = (int32_t)le32(ih + 8);
      if (w <= 0 || h == 0)
      {
        std::cerr << "bitmap_image::load_bitmap() ERROR: bad size in " << filename << std::endl;
        return;
      }
      const bool bottom_up = h > 0;
      width_  = (unsigned int)w;
      height_ = (unsigned int)(bottom_up ? h : -h);
      row_increment_ = width_ * 3;
      data_.assign((size_t)row_increment_ * height_, 0);

      const unsigned int padding = (4 - ((3 * width_) % 4)) % 4;
      stream.seekg(off_bits, std::ios::beg);
      std::vector<char> pad(4);
      for (unsigned int i = 0; i < height_; ++i)
      {
        const unsigned int r = bottom_up ? (height_ - i - 1) : i;
        stream.read(reinterpret_cast<char*>(&data_[(size_t)r * row_increment_]), row_increment_);
        stream.read(pad.data(), padding);
      }
      if (!stream)
        std::cerr << "bitmap_image::load_bitmap() ERROR: truncated pixel data in " << filename << std::endl;
    }

    unsigned int width_;
    unsigned int height_;
    unsigned int row_increment_;
    std::vector<unsigned char> data_;
};

#endif
